import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { connectClient, makeWorkspace, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { gatewayAuth, startCli, type RunningCli } from './support/spawn-cli.js';

// A workspace under /tmp (a CI checkout, a `mktemp -d` project) in the `full` tier, where the sandbox gives every
// command a /tmp of its own: the commands must work on the real workspace, while its protected files stay masked,
// the rest of the host's /tmp stays out of their reach, and nothing they do to the folders around the workspace
// reaches the host. Each drives `toolgate serve` with the MCP SDK client and checks the effect on disk.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
/** The system's own /tmp, not the test run's folder inside it: the workspace's parent is the folder the sandbox replaces. */
const SYSTEM_TMP = '/tmp';
const SECRET = 'TMP_WORKSPACE_SECRET=hunter2';
const RULES = ['ls *', 'cat *', 'cp *', 'grep *', 'mv *', 'rm *'];
const CONFIG = { scope: 'full', mode: 'auto', policy: { allowedCommandGlobs: RULES, allow: RULES.map((rule) => `Bash(${rule})`) } };

describe('attack: a workspace under /tmp in the full tier, whose /tmp the sandbox replaces', () => {
  let gateway: ServedGateway;
  let mcp: Client;
  let outside = '';
  /** Run `command`, approving it once if it asks, and give back what it answered. */
  const run = async (command: string[]): Promise<string> => text((await decideIfAsked(gateway, mcp, 'run_command', { command }, 'once')).result);

  beforeAll(async () => {
    gateway = await serveGateway(CONFIG, { files: { 'notes.md': 'inside the workspace\n', '.env': `${SECRET}\n` }, parent: SYSTEM_TMP });
    expect(dirname(realpathSync(gateway.workspace))).toBe(SYSTEM_TMP);
    outside = realpathSync(mkdtempSync(join(SYSTEM_TMP, 'toolgate-attack-tmp-outside-')));
    writeFileSync(join(outside, 'secret.txt'), 'HOST-TMP-SECRET\n');
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  }, 30_000);

  afterAll(async () => {
    await mcp?.close();
    await gateway?.cli.stop();
    rmSync(outside, { recursive: true, force: true });
    if (gateway !== undefined) rmSync(gateway.workspace, { recursive: true, force: true });
  });

  it('ls and cat see the workspace, and cp writes into the real one', async () => {
    expect(await run(['ls', '-A'])).toContain('notes.md');
    expect(await run(['cat', 'notes.md'])).toContain('inside the workspace');
    await run(['cp', 'notes.md', 'copy.md']);
    expect(readFileSync(join(gateway.workspace, 'copy.md'), 'utf8')).toBe('inside the workspace\n');
  });

  it('a .env in it still reads as nothing, even approved, and stays intact', async () => {
    expect(await run(['grep', '-r', 'hunter2', '.'])).not.toContain('hunter2');
    expect(await run(['cat', '.env'])).not.toContain('hunter2');
    expect(await run(['cp', '.env', 'leaked.txt'])).not.toContain('hunter2');
    expect(existsSync(join(gateway.workspace, 'leaked.txt')) ? readFileSync(join(gateway.workspace, 'leaked.txt'), 'utf8') : '').not.toContain('hunter2');
    expect(readFileSync(join(gateway.workspace, '.env'), 'utf8')).toBe(`${SECRET}\n`);
  });

  it("the rest of the host's /tmp stays out of sight", async () => {
    expect(await run(['cat', join(outside, 'secret.txt')])).not.toContain('HOST-TMP-SECRET');
    const listed = await run(['ls', '-A', dirname(gateway.workspace)]);
    expect(listed).toContain(basename(gateway.workspace));
    expect(listed).not.toContain(basename(outside));
  });

  it("mv of the workspace and rm -rf of its parent reach neither the host's /tmp nor the masked files", async () => {
    await run(['mv', gateway.workspace, join(dirname(gateway.workspace), 'moved')]);
    expect(existsSync(join(gateway.workspace, 'notes.md'))).toBe(true);
    expect(await run(['cat', 'notes.md'])).toContain('inside the workspace');
    await run(['rm', '-rf', dirname(gateway.workspace)]);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('HOST-TMP-SECRET\n');
    expect(readFileSync(join(gateway.workspace, '.env'), 'utf8')).toBe(`${SECRET}\n`);
    expect(existsSync(join(gateway.workspace, 'toolgate.config.json'))).toBe(true);
    // And the next command still finds the workspace, and its .env masked.
    expect(await run(['ls', '-A'])).toContain('.env');
    expect(await run(['grep', '-r', 'hunter2', '.'])).not.toContain('hunter2');
  });
});

describe("attack: a home reached through a link under /tmp, whose real folder is the workspace", () => {
  let cli: RunningCli;
  let mcp: Client;
  let link = '';

  beforeAll(async () => {
    // The gateway serves its own home (`toolgate serve` in ~), spelled through a link the sandbox's /tmp does not
    // hold; in `workspace-write`, whose workspace bind never hid it.
    const workspace = realpathSync(makeWorkspace({ ...CONFIG, scope: 'workspace-write', console: { enabled: false } }, { 'notes.md': 'inside the workspace\n', '.claude.json': '{"oauthAccount":"HOME-LINK-SECRET"}' }));
    mkdirSync(join(workspace, '.config', 'gh'), { recursive: true });
    writeFileSync(join(workspace, '.config', 'gh', 'hosts.yml'), 'oauth_token: HOME-LINK-SECRET\n');
    link = join(realpathSync(tmpdir()), `toolgate-attack-home-link-${basename(workspace)}`);
    symlinkSync(workspace, link);
    cli = startCli(['--json', 'serve', '--http', '0'], workspace, { HOME: link });
    const started = await cli.ready;
    mcp = (await connectClient(new URL(String(started.mcp)), 'attacker', undefined, gatewayAuth(started))).client;
  }, 30_000);

  afterAll(async () => {
    await mcp?.close();
    await cli?.stop();
    rmSync(link, { force: true });
  });

  it("grep -r of the workspace reads none of the home's credential stores", async () => {
    const result = text(await mcp.callTool({ name: 'run_command', arguments: { command: ['grep', '-r', '-e', 'HOME-LINK-SECRET', '-e', 'inside the workspace', '.'] } }));
    expect(result).toContain('inside the workspace');
    expect(result).not.toContain('HOME-LINK-SECRET');
  });
});
