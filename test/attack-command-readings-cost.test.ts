import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A deny or ask reads every command an argv may run, and each command of a shell string an argument holds. Seven
// strings of 8 KB for a program toolgate does not know, each of hundreds of commands, were some 23,000 readings, and
// thirty denies read every one: 160–190 ms of the gateway's one thread for a single call. The readings of one argv
// are now bounded in number too; past the bound they are cut, and a deny or ask covers the call.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

describe('attack: thousands of commands in the shell strings of one argv', () => {
  it('a deny covers the call once its commands are more than are read', async () => {
    const deny = Array.from({ length: 30 }, (_, i) => `Bash(rm${i}:*)`);
    // Each command ends in `/`, so no argument is a name too long to resolve. None is denied: the cut alone covers it.
    const strings = Array.from({ length: 7 }, (_, k) => Array.from({ length: 600 }, (_, i) => `exec x${k}_${i} a b c d e f g h i j k l m n o p/`).join(';').slice(0, 8000));
    // An exact entry, which the floor runs as written (under the glob alone the floor refuses what it cannot read): only the deny judges it.
    const policy = { allowedCommandGlobs: ['*'], allowedCommands: [['setarch', 'x86_64', ...strings]], allow: ['Bash(*)'], deny };
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'auto', policy }, { args: ['--no-console'] }));
    const mcp: Client = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const result = await mcp.callTool({ name: 'run_command', arguments: { command: ['setarch', 'x86_64', ...strings] } });
    expect(text(result), text(result)).toContain('refused by policy rule');
    // A command of a few readings is read whole, and runs.
    const ordinary = await mcp.callTool({ name: 'run_command', arguments: { command: ['setarch', 'x86_64', 'echo', 'hello'] } });
    expect(text(ordinary), text(ordinary)).toContain('hello');
  });
});
