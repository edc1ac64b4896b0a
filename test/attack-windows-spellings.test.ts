import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A hostile model names, in a command's arguments, a path that ends in a dot after a long run of dots and spaces
// (`--x=/.git. . . … x.`, outside the workspace so the host reports it as spelled and never walks it): the floor reads each such spelling as Windows would too (it drops trailing dots and
// spaces, so `.git./config` is `.git/config` there), and cut them with a regular expression that tried every start
// of the run, in time the square of its length, on the gateway's one thread. Four such calls at once, each within
// the limits of a call's arguments, held every other call, client and approval for seconds; a program named so did
// the same where its name is read. Driven through `toolgate serve`: a read beside them must answer at once (before:
// after 15.7 s).

const open = closeAfterEach();
const SPELLING = `/.git${'. '.repeat(3990)}x.`;

describe('attack: spellings Windows reads otherwise, long enough to take the gateway’s thread', () => {
  it('a read beside four such calls answers within seconds', async () => {
    const gateway = open.gateway(
      await serveGateway({ scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { allowedCommandGlobs: ['cat *'], allow: ['Bash(cat *)'] } }, { files: { 'notes.md': 'a\n' } }),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const started = Date.now();
    const command = ['cat', ...Array.from({ length: 7 }, () => `--x=${SPELLING}`)];
    const named = [`py${'. '.repeat(4000)}x`, 'notes.md'];
    const heavy = Promise.all([
      ...Array.from({ length: 4 }, () => client.callTool({ name: 'run_command', arguments: { command } }, undefined, { timeout: 120_000 })),
      client.callTool({ name: 'run_command', arguments: { command: named } }, undefined, { timeout: 120_000 }),
    ]);
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }, undefined, { timeout: 120_000 });
    expect(read.isError).not.toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    await heavy;
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 240_000);
});
