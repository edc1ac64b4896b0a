import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// The host walks each path a call names one `lstat` per folder, and the kernel reads each of those paths from the
// root again: a walk costs the square of its depth. Fifteen arguments naming a folder 1,990 deep, within PATH_MAX and
// the arguments' limit, held the gateway's one thread for 4–5 s while every other call waited. The walks of one call
// now share a budget; past it the path is refused as invalid, before anything runs.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();
const DEEP = Array<string>(1990).fill('a').join('/');

describe('attack: a command naming paths thousands of folders deep', () => {
  it('is refused before its walks hold the thread, and a path of ordinary depth still runs', async () => {
    const gateway = opened.gateway(
      await serveGateway({ scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['ls *'], allow: ['Bash(ls *)'] } }, { files: { [`${DEEP}/x.txt`]: 'x\n', 'a/b/c/y.txt': 'y\n' }, args: ['--no-console'] }),
    );
    const mcp: Client = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const result = await mcp.callTool({ name: 'run_command', arguments: { command: ['ls', ...Array<string>(15).fill(DEEP)] } });
    expect(result.isError, text(result)).toBe(true);
    expect(text(result)).toContain('deeper than one call may look up');
    const ordinary = await mcp.callTool({ name: 'run_command', arguments: { command: ['ls', 'a/b/c'] } });
    expect(text(ordinary), text(ordinary)).toContain('y.txt');
  });
});
