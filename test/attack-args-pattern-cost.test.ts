import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// An argument pattern is read by an automaton in time the text's length times the states it holds live. A pattern
// of thousands of states (`.*a` three thousand times, then `[YZ]`: a project's policy file may ship one, and its deny
// rules load without trust) read against a `write_file` of 64 KB held the gateway's one thread for 4 s while every
// other call waited. The patterns of one call now share a budget of steps; past it a pattern is not read on, and a
// deny or ask counts it as matching: the call is refused rather than the thread held.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();
const HEAVY = `${'.*a'.repeat(3000)}[YZ]`;

describe('attack: an argument pattern of many states against 64 KB of arguments', () => {
  it.each([
    ['an argsPattern deny', { tool: 'write_file', decision: 'deny', match: { argsPattern: HEAVY } }],
  ])('%s that cannot be read within the budget covers the call', async (_label, rule) => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'accept-edits', policy: { rules: [rule] } }, { args: ['--no-console'] }));
    const mcp: Client = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    // No `Y` or `Z`: only the automaton, read to the end, can tell the pattern does not match.
    const result = await mcp.callTool({ name: 'write_file', arguments: { path: 'out.txt', content: 'a'.repeat(60_000) } });
    expect(result.isError, text(result)).toBe(true);
    expect(text(result), text(result)).toContain('refused by policy rule');
    expect(existsSync(join(gateway.workspace, 'out.txt'))).toBe(false);
    // An ordinary write is read whole.
    const small = await mcp.callTool({ name: 'write_file', arguments: { path: 'small.txt', content: 'Zaaa' } });
    expect(small.isError, text(small)).toBeFalsy();
  });
});

describe('attack: Gemini CLI shell patterns over every command a long argv may run', () => {
  // A deny or ask reads every command an argv of a program toolgate does not know may run: 255 words of 50 characters
  // are 256 command lines of up to 13 KB, and each of twenty imported shell denies built the stable JSON of every line
  // again and read it, 120–160 ms of the gateway's thread for one call. Each line's JSON is now made once, and each
  // text read is counted against the call's budget: past it the denies cover the call.
  const toml = Array.from({ length: 20 }, (_, i) => `[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm${i}"\ndecision = "deny"\npriority = 10\n`).join('\n');

  it('a call whose lines are more than the budget reads is refused by the deny', async () => {
    const policy = { allowedCommandGlobs: ['*'], allow: ['Bash(*)'], imports: [{ from: 'gemini', path: '.gemini/policies/repo.toml' }] };
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'auto', policy }, { files: { '.gemini/policies/repo.toml': toml }, args: ['--no-console'] }));
    const mcp: Client = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const command = ['setarch', ...Array.from({ length: 255 }, (_, i) => `${'a'.repeat(50)}${1000 + i}`)];
    const result = await mcp.callTool({ name: 'run_command', arguments: { command } });
    expect(text(result), text(result)).toContain('refused by policy rule');
    // A short command is read whole, and runs.
    const ordinary = await mcp.callTool({ name: 'run_command', arguments: { command: ['echo', 'hello'] } });
    expect(text(ordinary)).toContain('hello');
  });
});
