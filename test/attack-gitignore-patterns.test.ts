import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A repository (or a model that may write in the workspace) ships a `.gitignore` that the gateway's own
// `list_directory` reads on the gateway's one thread: a glob of many stars beside a file whose name almost fits it,
// and a line of spaces that does not end in one. The glob went through a backtracking regular expression, and the
// line's trailing spaces were cut with one: a single listing (allowed in every mode, read-only tier included) held
// the gateway's event loop for minutes, every other call, client, approval and the console waiting behind it.
// Driven through `toolgate serve`: a read beside the listing must answer at once, and the listing itself too.

const open = closeAfterEach();
const STARS = `${'*a'.repeat(12)}*b`;

describe('attack: a .gitignore whose patterns take the gateway’s thread', () => {
  it.each([
    ['a glob of many stars', `${STARS}\n`, { [`notes/${'a'.repeat(120)}`]: 'x\n' }],
    ['a long line of spaces ending in a character', `${' '.repeat(200_000)}x\n`, {}],
  ])('%s: a listing and a read beside it both answer within seconds, and the rules still apply', async (_what, gitignore, more) => {
    const gateway = open.gateway(
      await serveGateway({ scope: 'read-only', mode: 'ask', console: { enabled: false } }, { files: { '.gitignore': `${gitignore}ignored.log\n`, 'ignored.log': 'x\n', 'kept.txt': 'x\n', ...more } }),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const started = Date.now();
    const listing = client.callTool({ name: 'list_directory', arguments: { path: '.', depth: 2 } }, undefined, { timeout: 60_000 });
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'kept.txt' } }, undefined, { timeout: 60_000 });
    expect(read.isError).not.toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    const listed = JSON.stringify((await listing).content);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(listed).toContain('kept.txt');
    expect(listed).not.toContain('ignored.log');
  }, 90_000);
});
