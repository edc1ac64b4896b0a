import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// A hostile repository and a hostile model against what the policy importers read: each case is a settings or policy
// file whose rule toolgate read otherwise than its peer does, served through `toolgate serve` with the MCP SDK client.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

describe('attack import: a Gemini CLI pattern that backtracks, in an unpinned repository file', () => {
  // A repository's deny and ask rules load without a pin. Gemini CLI's own check passes `(a|a)*X` (no quantified group
  // holds a quantifier); matched by a backtracking regular expression it costs 2^n steps for a command of n `a`s, and
  // one call of the model's held the gateway's only thread for as long as it liked.
  const policy = '[[rule]]\ntoolName = "run_shell_command"\nargsPattern = "(a|a)*X"\ndecision = "deny"\npriority = 10\n';
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    gateway = await serveGateway(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['echo *'], allow: ['Bash(echo *)'], imports: [{ from: 'gemini', path: '.gemini/policies/repo.toml' }] } },
      { files: { '.gemini/policies/repo.toml': policy }, args: ['--no-console'] },
    );
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    // A thread held by a regular expression runs no signal handler: only a kill ends it.
    gateway?.cli.child.kill('SIGKILL');
    await mcp?.close().catch(() => undefined);
  });

  it('a call with a long argument is decided at once, and the deny still refuses what it names', async () => {
    const long = 'a'.repeat(48);
    const answered = mcp!.callTool({ name: 'run_command', arguments: { command: ['echo', long] } }, undefined, { timeout: 20_000 });
    const result = await Promise.race([answered, new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 10_000))]);
    expect(result).not.toBe('held');
    expect(text(result as object)).toContain(long);
    const denied = await mcp!.callTool({ name: 'run_command', arguments: { command: ['echo', 'aaX'] } });
    expect(text(denied)).toContain('refused by policy rule');
  }, 40_000);
});
