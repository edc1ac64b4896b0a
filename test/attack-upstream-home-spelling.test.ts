import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';

// A hostile model against the reference filesystem server in the `full` scope, through `toolgate serve` and the MCP
// SDK client: server-filesystem reads `~/…` as the home folder, where the gateway judged it as a folder named `~` in
// the workspace. The gateway's own rules and keys in ~/.config/toolgate/, refused by their absolute path, were read
// as `~/.config/toolgate/policy.json` with nobody asked, and a GitHub token in ~/.config/gh/ likewise.

const FS = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

describe('attack: `~/` in a path server-filesystem is given', () => {
  it('is judged as the home folder the server reads it as: private paths refused, credentials asked for', async () => {
    const home = realpathSync(mkdtempSync(join('/var/tmp', 'toolgate-home-spelling-')));
    homes.push(home);
    mkdirSync(join(home, '.config/gh'), { recursive: true });
    writeFileSync(join(home, '.config/gh/hosts.yml'), 'github.com:\n  oauth_token: gho_SECRET_GH_TOKEN\n');
    const workspace = makeWorkspace({ scope: 'full', mode: 'auto', servers: { fs: { command: process.execPath, args: [FS, '.', home], trust: 'annotations' } } }, { 'notes.txt': 'plain notes\n' }, '/var/tmp');
    homes.push(workspace);
    const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: home } }));
    // The user's remembered rules, which the gateway holds private (it made the folder at start).
    writeFileSync(join(home, '.config/toolgate/policy.json'), JSON.stringify({ rules: [{ tool: 'run_command', match: { argv: ['deploy', 'SECRET-ARGV'], exact: true }, decision: 'allow' }] }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);

    for (const path of ['~/.config/toolgate/policy.json', join(home, '.config/toolgate/policy.json')]) {
      const read = await decideIfAsked(gateway, mcp, 'mcp_fs_read_text_file', { path }, 'reject');
      expect(read.card, path).toBeUndefined();
      expect(text(read.result), path).toContain('the path is protected');
      expect(text(read.result), path).not.toContain('SECRET-ARGV');
    }
    const written = await decideIfAsked(gateway, mcp, 'mcp_fs_write_file', { path: '~/.config/toolgate/policy.json', content: '{"rules":[]}' }, 'approve');
    expect(written.card).toBeUndefined();
    expect(readFileSync(join(home, '.config/toolgate/policy.json'), 'utf8')).toContain('SECRET-ARGV');
    const token = await decideIfAsked(gateway, mcp, 'mcp_fs_read_text_file', { path: '~/.config/gh/hosts.yml' }, 'reject');
    expect(token.card, `read without asking: ${text(token.result)}`).toBeDefined();
    expect(token.card?.target?.files.map((file) => file.path)).toEqual([join(home, '.config/gh/hosts.yml')]);
    expect(text(token.result)).not.toContain('gho_SECRET');
    // A file of the workspace still reads as the rules say.
    const plain = await decideIfAsked(gateway, mcp, 'mcp_fs_read_text_file', { path: 'notes.txt' }, 'reject');
    expect(plain.card).toBeUndefined();
    expect(text(plain.result)).toContain('plain notes');
  }, 60_000);
});
