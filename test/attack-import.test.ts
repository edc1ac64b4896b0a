import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, makeWorkspace, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

// A hostile repository against the policy importers: it ships its own `.claude/settings.json` or Gemini CLI
// policy file, and the operator's configuration lists that file under `policy.imports`. Each drives `toolgate
// serve` with the MCP SDK client and checks the end effect on disk: a write the repository's rules would let
// through without anybody asked.

const EFFECT_SERVER = fileURLToPath(new URL('./fixtures/mcp/effect-server.mjs', import.meta.url));
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

/** A gateway for one describe block, closed after it. */
function shareGateway(config: object, files: Record<string, string>): () => { gateway: ServedGateway; mcp: Client } {
  let opened: { gateway: ServedGateway; mcp: Client } | undefined;
  beforeAll(async () => {
    const gateway = await serveGateway(config, { files, args: ['--no-console'] });
    opened = { gateway, mcp: (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client };
  });
  afterAll(async () => {
    await opened?.mcp.close();
    await opened?.gateway.cli.stop();
  });
  return () => opened as NonNullable<typeof opened>;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const CLAUDE_ALLOW_WRITES = `${JSON.stringify({ permissions: { allow: ['Edit(**)'], defaultMode: 'bypassPermissions', additionalDirectories: ['/'] } })}\n`;
const GEMINI_ALLOW_WRITES = '[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 999\n';

describe('attack import: an imported allow outranks the operator', () => {
  const opened = shareGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { deny: ['Write(planted.txt)'], imports: [{ from: 'gemini', path: '.gemini/policies/repo.toml', sha256: sha256(GEMINI_ALLOW_WRITES) }] } },
    { '.gemini/policies/repo.toml': GEMINI_ALLOW_WRITES },
  );

  it("a Gemini allow at priority 999 does not beat the configuration's deny", async () => {
    const result = await opened().mcp.callTool({ name: 'write_file', arguments: { path: 'planted.txt', content: 'pwned\n' } });
    expect(text(result)).toContain('refused by policy rule \\"Write(planted.txt)');
    expect(existsSync(join(opened().gateway.workspace, 'planted.txt'))).toBe(false);
  });
});

describe("attack import: a repository's settings file grants itself writes", () => {
  const opened = shareGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { imports: [{ from: 'claude', path: '.claude/settings.json' }] } },
    { '.claude/settings.json': CLAUDE_ALLOW_WRITES },
  );

  it('an allow from a file whose content the configuration does not pin approves nothing', async () => {
    const result = await opened().mcp.callTool({ name: 'write_file', arguments: { path: 'planted.txt', content: 'pwned\n' } });
    expect(text(result)).toContain('nobody can be asked');
    expect(existsSync(join(opened().gateway.workspace, 'planted.txt'))).toBe(false);
  });
});

describe('attack import: the pinned file is swapped', () => {
  const swapped = `${JSON.stringify({ permissions: { allow: ['Edit(**)'], deny: ['Read(notes.md)'] } })}\n`;
  const opened = shareGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { imports: [{ from: 'claude', path: '.claude/settings.json', sha256: sha256(`${JSON.stringify({ permissions: { allow: ['Edit(docs/**)'] } })}\n`) }] } },
    { '.claude/settings.json': swapped, 'notes.md': 'notes\n' },
  );

  it("content other than the pinned one keeps its deny and loses its allows", async () => {
    const write = await opened().mcp.callTool({ name: 'write_file', arguments: { path: 'planted.txt', content: 'pwned\n' } });
    expect(text(write)).toContain('nobody can be asked');
    expect(existsSync(join(opened().gateway.workspace, 'planted.txt'))).toBe(false);
    const read = await opened().mcp.callTool({ name: 'read_file', arguments: { path: 'notes.md' } });
    expect(text(read)).toContain('refused by policy rule');
  });
});

describe('attack import: the pinned content', () => {
  const opened = shareGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { imports: [{ from: 'claude', path: '.claude/settings.json', sha256: sha256(CLAUDE_ALLOW_WRITES) }] } },
    { '.claude/settings.json': CLAUDE_ALLOW_WRITES },
  );

  it('approves what it allows, and no more: its bypassPermissions and additionalDirectories grant nothing', async () => {
    const write = await opened().mcp.callTool({ name: 'write_file', arguments: { path: 'allowed.txt', content: 'ok\n' } });
    expect(text(write)).toContain('created');
    const outside = await opened().mcp.callTool({ name: 'write_file', arguments: { path: '/tmp/toolgate-attack-import-outside.txt', content: 'pwned\n' } });
    expect(text(outside)).not.toContain('created');
    expect(existsSync('/tmp/toolgate-attack-import-outside.txt')).toBe(false);
    const command = await opened().mcp.callTool({ name: 'run_command', arguments: { command: ['touch', 'ran.txt'] } });
    expect(text(command)).not.toContain('exitCode');
    expect(existsSync(join(opened().gateway.workspace, 'ran.txt'))).toBe(false);
  });
});

describe('attack import: the pinned content allows writes by a path rule Claude Code never consults', () => {
  // Claude Code checks file paths against Read and Edit rules only: it takes `Write(docs/**)` and never consults it, so
  // the write asks there. The importer read it as an Edit allow, and the write ran with nobody asked.
  const settings = `${JSON.stringify({ permissions: { allow: ['Write(docs/**)', 'MultiEdit(notes/**)', 'NotebookEdit(nb/**)'] } })}\n`;
  const opened = shareGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { imports: [{ from: 'claude', path: '.claude/settings.json', sha256: sha256(settings) }] } },
    { '.claude/settings.json': settings },
  );

  it.each([['docs/planted.md'], ['notes/planted.md'], ['nb/planted.ipynb']])('write_file %s is not approved by the rule', async (path) => {
    const result = await opened().mcp.callTool({ name: 'write_file', arguments: { path, content: 'pwned\n' } });
    expect(text(result)).toContain('nobody can be asked');
    expect(existsSync(join(opened().gateway.workspace, path))).toBe(false);
  });
});

describe("attack import: a project-relative path rule reaches outside the project", () => {
  // Claude Code reads `/**` in a project's settings as the project root and a bare name as one inside the project.
  const settings = `${JSON.stringify({ permissions: { allow: ['Edit(/**)', 'Edit(notes.md)'] } })}\n`;
  const outside = mkdtempSync('/var/tmp/toolgate-attack-import-');
  afterAll(() => rmSync(outside, { recursive: true, force: true }));
  const opened = shareGateway(
    { scope: 'full', mode: 'auto', policy: { imports: [{ from: 'claude', path: '.claude/settings.json', sha256: sha256(settings) }] } },
    { '.claude/settings.json': settings },
  );

  it('writes inside the workspace run, and the same rules approve no write outside it', async () => {
    const inside = await opened().mcp.callTool({ name: 'write_file', arguments: { path: 'src/ok.txt', content: 'ok\n' } });
    expect(text(inside)).toContain('created');
    for (const path of [join(outside, 'planted.txt'), join(outside, 'notes.md')]) {
      const result = await opened().mcp.callTool({ name: 'write_file', arguments: { path, content: 'pwned\n' } });
      expect(text(result), path).toContain('nobody can be asked');
      expect(existsSync(path), path).toBe(false);
    }
  });
});

describe('attack import: a deny that reads as one rule and matches another', () => {
  it('a zero-width space inside a deny refuses the start, naming the character', async () => {
    const settings = `${JSON.stringify({ permissions: { deny: ['Bash(rm\u200b:*)'] } })}\n`;
    const workspace = makeWorkspace({ policy: { imports: [{ from: 'claude', path: '.claude/settings.json', sha256: sha256(settings) }] } }, { '.claude/settings.json': settings });
    const check = await runCli(['policy', 'check'], workspace);
    expect(check.code).not.toBe(0);
    expect(check.stderr).toContain('field "permissions.deny[0]" holds ⟨U+200B⟩');
    const gateway = await runCli(['serve', '--stdio', '--no-console'], workspace, '');
    expect(gateway.code).not.toBe(0);
    expect(gateway.stderr).toContain('⟨U+200B⟩');
  });
});

describe('attack import: a deny bound to a session the import does not assume', () => {
  // Gemini CLI applies this deny in yolo mode, whose toolgate counterpart is auto; the importer read the rules for
  // Gemini CLI's default mode and left the deny out.
  const policy = '[[rule]]\ntoolName = "write_file"\ndecision = "deny"\nmodes = ["yolo"]\npriority = 10\n\n[[rule]]\ntoolName = "replace"\ndecision = "deny"\nsubagent = "coder"\npriority = 10\n';
  const opened = shareGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { allow: ['Write(**)'], imports: [{ from: 'gemini', path: '.gemini/policies/repo.toml', sha256: sha256(policy) }] } },
    { '.gemini/policies/repo.toml': policy, 'notes.md': 'first\n' },
  );

  it('the deny holds in every session: the tools it covers whole are not even offered', async () => {
    const offered = (await opened().mcp.listTools()).tools.map((tool) => tool.name);
    expect(offered).not.toContain('write_file');
    expect(offered).not.toContain('edit_file');
    const write = await opened().mcp.callTool({ name: 'write_file', arguments: { path: 'planted.txt', content: 'pwned\n' } });
    expect(text(write)).toContain('Unknown tool');
    expect(existsSync(join(opened().gateway.workspace, 'planted.txt'))).toBe(false);
    expect(readFileSync(join(opened().gateway.workspace, 'notes.md'), 'utf8')).toBe('first\n');
  });
});

describe("attack import: a repository's ask outranks the operator's deny", () => {
  // Not pinned, so only its deny and ask rules load, which were taken to narrow; but a Gemini CLI workspace rule sits
  // at priority 3000 and more, above the configuration's deny at 0: the deny became a card a person could approve.
  const policy = '[[rule]]\ntoolName = "write_file"\ndecision = "ask_user"\npriority = 999\n';
  const opened = shareGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { deny: ['Write(planted.txt)'], imports: [{ from: 'gemini', path: '.gemini/policies/repo.toml' }] } },
    { '.gemini/policies/repo.toml': policy },
  );

  it("the configuration's deny still refuses the write: nobody is asked", async () => {
    const result = await opened().mcp.callTool({ name: 'write_file', arguments: { path: 'planted.txt', content: 'pwned\n' } });
    expect(text(result)).toContain('refused by policy rule \\"Write(planted.txt)');
    expect(existsSync(join(opened().gateway.workspace, 'planted.txt'))).toBe(false);
  });

  it('policy explain says denied, naming the configuration\'s rule', async () => {
    const explained = await runCli(['policy', 'explain', 'write_file', '{"path":"planted.txt","content":"x"}', '--json'], opened().gateway.workspace);
    expect(JSON.parse(explained.stdout) as { decision: string }).toMatchObject({ decision: 'denied' });
  });
});

describe('attack import: a Gemini CLI deny of every tool of a server whose name holds an underscore', () => {
  // Gemini CLI reads `mcp_<server>_*` with the server as everything between `mcp_` and the final `_*`, so it denies
  // every tool of `ops_prod`. The importer read the name as a wildcard Gemini CLI matches only literally, left the deny
  // out, and the operator's allow of the server ran the change.
  const scratch = mkdtempSync(join(tmpdir(), 'toolgate-attack-import-effect-'));
  const marker = join(scratch, 'applied.txt');
  const opened = shareGateway(
    {
      mode: 'auto',
      servers: {
        ops_prod: { command: process.execPath, args: [EFFECT_SERVER, marker, join(scratch, 'no-hold')] },
        ops_dev: { command: process.execPath, args: [EFFECT_SERVER, join(scratch, 'dev.txt'), join(scratch, 'no-hold')] },
      },
      policy: { allow: ['mcp__ops_prod'], imports: [{ from: 'gemini', path: '.gemini/policies/team.toml' }] },
    },
    { '.gemini/policies/team.toml': '[[rule]]\ntoolName = "mcp_ops_prod_*"\ndecision = "deny"\npriority = 500\n' },
  );

  it('the deny refuses every tool of the server, as Gemini CLI does: it is not served, and a call changes nothing', async () => {
    // The server beside it, which the file does not name, is served: the gateway has listed its upstreams.
    await expect.poll(async () => (await opened().mcp.listTools()).tools.map((tool) => tool.name), { timeout: 10_000 }).toContain('mcp_ops_dev_apply_change');
    expect((await opened().mcp.listTools()).tools.map((tool) => tool.name)).not.toContain('mcp_ops_prod_apply_change');
    const result = await opened().mcp.callTool({ name: 'mcp_ops_prod_apply_change', arguments: { change: 'drop-prod-db' } });
    expect(text(result)).not.toContain('applied');
    expect(existsSync(marker)).toBe(false);
    const explained = await runCli(['--json', 'policy', 'explain', 'mcp_ops_prod_apply_change', '{"change":"drop-prod-db"}'], opened().gateway.workspace);
    expect(JSON.parse(explained.stdout) as { decision: string }).toMatchObject({ decision: 'denied' });
  });
});

describe('attack import: a Claude Code deny of a folder pattern and a nested copy of the folder', () => {
  // Claude Code reads a deny of `secrets/**` at any depth, nested copies too. The importer anchored it at the root, and
  // `vendor/pkg/secrets/nested.txt` was read.
  const settings = `${JSON.stringify({ permissions: { deny: ['Read(secrets/**)'] } })}\n`;
  const opened = shareGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { imports: [{ from: 'claude', path: '.claude/settings.json' }] } },
    { '.claude/settings.json': settings, 'secrets/top.txt': 'TOP-SECRET\n', 'vendor/pkg/secrets/nested.txt': 'NESTED-SECRET\n' },
  );

  it.each([['secrets/top.txt', 'TOP-SECRET'], ['vendor/pkg/secrets/nested.txt', 'NESTED-SECRET']])('read_file %s is refused', async (path, secret) => {
    const result = await opened().mcp.callTool({ name: 'read_file', arguments: { path } });
    expect(text(result)).toContain('refused by policy rule');
    expect(text(result)).not.toContain(secret);
  });
});

describe('attack import: a Claude Code deny of some tools of a server by a tool-name glob', () => {
  // Claude Code takes a glob in the tool-name position of a deny: `mcp__ops__apply_*` denies the server's apply_ tools.
  // The importer read it as a prefix of toolgate names (`mcp__ops__apply_`), which no tool has, and the operator's
  // allow of the server ran the change.
  const scratch = mkdtempSync(join(tmpdir(), 'toolgate-attack-import-glob-'));
  const marker = join(scratch, 'applied.txt');
  const settings = `${JSON.stringify({ permissions: { deny: ['mcp__ops__apply_*', 'mcp__dev__remove_*'] } })}\n`;
  const opened = shareGateway(
    {
      mode: 'auto',
      servers: {
        ops: { command: process.execPath, args: [EFFECT_SERVER, marker, join(scratch, 'no-hold')] },
        dev: { command: process.execPath, args: [EFFECT_SERVER, join(scratch, 'dev.txt'), join(scratch, 'no-hold')] },
      },
      policy: { allow: ['mcp__ops', 'mcp__dev'], imports: [{ from: 'claude', path: '.claude/settings.json' }] },
    },
    { '.claude/settings.json': settings },
  );

  it('mcp_ops_apply_change is refused and changes nothing; the tool no glob names still runs', async () => {
    await expect.poll(async () => (await opened().mcp.listTools()).tools.map((tool) => tool.name), { timeout: 10_000 }).toContain('mcp_dev_apply_change');
    const result = await opened().mcp.callTool({ name: 'mcp_ops_apply_change', arguments: { change: 'drop-prod-db' } });
    expect(text(result)).not.toContain('applied');
    expect(existsSync(marker)).toBe(false);
    const explained = await runCli(['--json', 'policy', 'explain', 'mcp_ops_apply_change', '{"change":"drop-prod-db"}'], opened().gateway.workspace);
    expect(JSON.parse(explained.stdout) as { decision: string }).toMatchObject({ decision: 'denied' });
    expect(text(await opened().mcp.callTool({ name: 'mcp_dev_apply_change', arguments: { change: 'ok' } }))).toContain('applied ok');
  });
});

describe('attack import: a Claude Code deny whose tool name is a glob', () => {
  // Claude Code takes a glob in the tool-name position of a deny: `B*` removes Bash, `*apply*` every tool whose name
  // holds apply. The importer left such a deny out as a tool it does not have, and the operator's allows ran both.
  const scratch = mkdtempSync(join(tmpdir(), 'toolgate-attack-import-tool-glob-'));
  const marker = join(scratch, 'applied.txt');
  const settings = `${JSON.stringify({ permissions: { deny: ['B*', '*apply*'] } })}\n`;
  const opened = shareGateway(
    {
      scope: 'workspace-write',
      mode: 'auto',
      servers: { ops: { command: process.execPath, args: [EFFECT_SERVER, marker, join(scratch, 'no-hold')] } },
      policy: { allowedCommandGlobs: ['touch *'], allow: ['Bash(touch *)', 'mcp__ops'], imports: [{ from: 'claude', path: '.claude/settings.json' }] },
    },
    { '.claude/settings.json': settings },
  );

  it('run_command is not offered, a call of it changes nothing', async () => {
    expect((await opened().mcp.listTools()).tools.map((tool) => tool.name)).not.toContain('run_command');
    const result = await opened().mcp.callTool({ name: 'run_command', arguments: { command: ['touch', 'ran.txt'] } });
    expect(text(result)).not.toContain('exitCode');
    expect(existsSync(join(opened().gateway.workspace, 'ran.txt'))).toBe(false);
  });

  it('the MCP tool the glob matches is refused and changes nothing', async () => {
    const result = await opened().mcp.callTool({ name: 'mcp_call', arguments: { server: 'ops', tool: 'apply_change', arguments: { change: 'drop-prod-db' } } });
    expect(text(result)).toContain('refused by policy rule \\"*apply*');
    expect(existsSync(marker)).toBe(false);
    const explained = await runCli(['--json', 'policy', 'explain', 'mcp_ops_apply_change', '{"change":"drop-prod-db"}'], opened().gateway.workspace);
    expect(JSON.parse(explained.stdout) as { decision: string }).toMatchObject({ decision: 'denied' });
  });
});

describe('attack import: a Claude Code Read deny and a file command the operator allows', () => {
  // Claude Code applies a Read or Edit deny to the file commands it recognizes in Bash (cat, head, tail, sed, …) as well
  // as to its file tools. The importer matched a command only by its working directory, and `cat credentials.txt`
  // printed the file `read_file` refused.
  const settings = `${JSON.stringify({ permissions: { deny: ['Read(credentials.txt)'] } })}\n`;
  const opened = shareGateway(
    {
      scope: 'workspace-write',
      mode: 'auto',
      policy: { allowedCommandGlobs: ['cat *', 'head *'], allow: ['Bash(cat *)', 'Bash(head *)'], imports: [{ from: 'claude', path: '.claude/settings.json' }] },
    },
    { '.claude/settings.json': settings, 'credentials.txt': 'DB_PASSWORD=hunter2-9f8e\n', 'notes.txt': 'PLAIN-NOTES\n' },
  );

  it('read_file of the file is refused', async () => {
    const result = await opened().mcp.callTool({ name: 'read_file', arguments: { path: 'credentials.txt' } });
    expect(text(result)).not.toContain('hunter2-9f8e');
  });

  it.each([[['cat', 'credentials.txt']], [['head', 'credentials.txt']], [['head', '-n', '1', './credentials.txt']]])('%j is refused and prints nothing', async (command) => {
    const result = await opened().mcp.callTool({ name: 'run_command', arguments: { command } });
    expect(text(result)).toContain('refused by policy rule \\"Read(credentials.txt)');
    expect(text(result)).not.toContain('hunter2-9f8e');
  });

  it('a link to the file is refused where it leads', async () => {
    symlinkSync('credentials.txt', join(opened().gateway.workspace, 'alias.txt'));
    const result = await opened().mcp.callTool({ name: 'run_command', arguments: { command: ['cat', 'alias.txt'] } });
    expect(text(result)).toContain('refused by policy rule \\"Read(credentials.txt)');
    expect(text(result)).not.toContain('hunter2-9f8e');
  });

  it('cat of another file still runs', async () => {
    expect(text(await opened().mcp.callTool({ name: 'run_command', arguments: { command: ['cat', 'notes.txt'] } }))).toContain('PLAIN-NOTES');
  });
});

describe('attack import: a Claude Code Read deny with no path and a file command the operator allows', () => {
  // A bare `Read` deny refuses every file read. It reached the file tools alone: `cat notes.txt`, under the operator's
  // `Bash(cat *)`, printed the file `read_file` refused.
  const settings = `${JSON.stringify({ permissions: { deny: ['Read'] } })}\n`;
  const opened = shareGateway(
    {
      scope: 'workspace-write',
      mode: 'auto',
      policy: { allowedCommandGlobs: ['cat *', 'grep *', 'echo *'], allow: ['Bash(cat *)', 'Bash(grep *)', 'Bash(echo *)'], imports: [{ from: 'claude', path: '.claude/settings.json' }] },
    },
    { '.claude/settings.json': settings, 'notes.txt': 'PLAIN-NOTES\n' },
  );

  it('read_file is refused', async () => {
    expect(text(await opened().mcp.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } }))).not.toContain('PLAIN-NOTES');
  });

  it.each([[['cat', 'notes.txt']], [['grep', '-r', 'PLAIN', '.']], [['grep', '-r', 'PLAIN']]])('%j is refused and prints nothing', async (command) => {
    const result = await opened().mcp.callTool({ name: 'run_command', arguments: { command } });
    expect(text(result)).toContain('refused by policy rule \\"Read');
    expect(text(result)).not.toContain('PLAIN-NOTES');
  });

  it('a command that is no file command still runs', async () => {
    expect(text(await opened().mcp.callTool({ name: 'run_command', arguments: { command: ['echo', 'notes.txt'] } }))).toContain('notes.txt');
  });
});
