import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, makeWorkspace, type ServedGateway } from './support/serve-gateway.js';

// A second attack on the files protected names link to (see attack-protected-link-targets.test.ts), through `toolgate
// serve`, the MCP SDK client and the console's API. Before: `.git/hooks` or `.git/config` that is itself a link had
// its target written unasked; a command allowed by a glob removed or re-pointed the user's `.env` link, and the
// secret it led to read unasked; a link that leads into a folder not made yet had its target created unasked; a
// command re-pointed a folder link on the way to a hook, and the user's git ran the model's hook; a link inside a
// protected folder (`.ssh/id_ed25519` to `keys/deploy`) was read unasked, and unmasked in the sandbox.

const SECRET = 'DB_PASSWORD=hunter2-LEAKED\n';
const HOOK = '#!/bin/sh\nexit 0\n';
const PAYLOAD = '#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/PWNED_BY_HOOK"\n';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();
const PACKAGE = '{"name":"app","version":"1.0.0","scripts":{"test":"true"}}\n';
const FS = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** The user's own git, outside toolgate, afterwards; what it ran is the question, not whether it succeeded. */
function userGit(workspace: string, ...args: string[]): void {
  try {
    execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd: workspace, stdio: 'pipe' });
  } catch {
    // A hook that failed still ran.
  }
}

/** The model writes `code` as a script and runs it as the npm script the rules allow; resolves with what the call returned. */
async function runScript(at: { gateway: ServedGateway; mcp: Client }, code: string): Promise<string> {
  await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'setup.js', content: code }, 'reject');
  await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'package.json', content: JSON.stringify({ name: 'app', version: '1.0.0', scripts: { setup: 'node setup.js' } }) }, 'reject');
  return text((await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['npm', 'run', 'setup'] }, 'reject')).result);
}

/** The user commits, with their own git, after the call: whether a hook of the model's ran. */
function hookRanAtCommit(workspace: string): boolean {
  userGit(workspace, 'add', 'a.txt');
  userGit(workspace, 'commit', '-q', '-m', 'user commit');
  return existsSync(join(workspace, 'PWNED_BY_HOOK'));
}

describe('attack: the links that decide what a protected name is', () => {
  it('`.git/hooks` and `.git/config` that are links into the work tree: writing their targets asks', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits', policy: { allow: ['Read(**)'] } }, { 'githooks/pre-commit': HOOK, 'a.txt': 'a\n' });
    chmodSync(join(workspace, 'githooks/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    rmSync(join(workspace, '.git/hooks'), { recursive: true, force: true });
    symlinkSync('../githooks', join(workspace, '.git/hooks'));
    renameSync(join(workspace, '.git/config'), join(workspace, 'repo.gitconfig'));
    symlinkSync('../repo.gitconfig', join(workspace, '.git/config'));
    const at = await opened.serve(workspace);
    const hook = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'githooks/pre-commit', content: PAYLOAD }, 'reject');
    expect(hook.card, `written without asking: ${text(hook.result)}`).toBeDefined();
    const config = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'repo.gitconfig', content: '[core]\n\tfsmonitor = "touch PWNED; false"\n' }, 'reject');
    expect(config.card, `written without asking: ${text(config.result)}`).toBeDefined();
    expect(hookRanAtCommit(workspace)).toBe(false);
    expect(existsSync(join(workspace, 'PWNED'))).toBe(false);
  }, 60_000);

  it("a command that removes the user's `.env` link has it put back, and what it led to stays protected", async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['npm run *'], allow: ['Read(**)', 'Edit(package.json)', 'Bash(npm run *)'] } },
      { 'config/dev.secrets': SECRET, 'package.json': PACKAGE },
    );
    symlinkSync('config/dev.secrets', join(workspace, '.env'));
    const at = await opened.serve(workspace);
    const scripts = { test: 'true', show: 'cat config/dev.secrets', tidy: `node -e "require('fs').unlinkSync('.env')"` };
    await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'package.json', content: JSON.stringify({ name: 'app', version: '1.0.0', scripts }) }, 'reject');
    const tidy = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['npm', 'run', 'tidy'] }, 'reject');
    expect(text(tidy.result)).toContain('toolgate put .env back');
    expect(readlinkSync(join(workspace, '.env'))).toBe('config/dev.secrets');
    const read = await decideIfAsked(at.gateway, at.mcp, 'read_file', { path: 'config/dev.secrets' }, 'reject');
    expect(read.card, `read without asking: ${text(read.result)}`).toBeDefined();
    const show = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['npm', 'run', 'show'] }, 'reject');
    expect(text(show.result)).not.toContain('hunter2');
  }, 90_000);

  it("a command that re-points the user's `.env` link to a file of the repository's has it put back", async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['cp *'], allow: ['Read(**)', 'Bash(cp *)'] } }, { 'config/dev.secrets': SECRET, 'notes.txt': 'NODE_OPTIONS=--require ./evil.js\n' });
    symlinkSync('config/dev.secrets', join(workspace, '.env'));
    mkdirSync(join(workspace, 'staged'));
    symlinkSync('../notes.txt', join(workspace, 'staged/.env'));
    const at = await opened.serve(workspace);
    const copied = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['cp', '-rP', '--remove-destination', 'staged/.', '.'] }, 'reject');
    expect(copied.card).toBeUndefined();
    expect(text(copied.result)).toMatch(/toolgate put \.env \(what stood there moved to \.env-held-by-toolgate\) back/);
    expect(readlinkSync(join(workspace, '.env'))).toBe('config/dev.secrets');
    const read = await decideIfAsked(at.gateway, at.mcp, 'read_file', { path: 'config/dev.secrets' }, 'reject');
    expect(read.card, `read without asking: ${text(read.result)}`).toBeDefined();
  }, 60_000);

  it('a link into a folder not made yet: creating its target asks', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits', policy: { allow: ['Read(**)'] } }, { 'a.txt': 'a\n' });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    symlinkSync('secrets/dev.env', join(workspace, '.env'));
    symlinkSync('../../tools/hooks/pre-push', join(workspace, '.git/hooks/pre-push'));
    const at = await opened.serve(workspace);
    for (const path of ['secrets/dev.env', 'tools/hooks/pre-push']) {
      const written = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path, content: PAYLOAD }, 'reject');
      expect(written.card, `${path} written without asking: ${text(written.result)}`).toBeDefined();
      expect(existsSync(join(workspace, path))).toBe(false);
    }
  }, 60_000);

  it("a command that makes what a hook link, or the user's `.env` link, leads to while it is missing has it moved aside: the user's git runs no hook of the model's", async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['npm run *'], allow: ['Read(**)', 'Edit(**)', 'Bash(npm run *)'] } },
      { 'a.txt': 'a\n', 'package.json': PACKAGE },
    );
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    // Checked out without the folders they lead into (a hooks folder a setup script makes, an .env the user makes later).
    symlinkSync('../../tools/hooks/pre-commit', join(workspace, '.git/hooks/pre-commit'));
    symlinkSync('config/dev.env', join(workspace, '.env'));
    const at = await opened.serve(workspace);
    const setup = `const f = require('fs');\nf.mkdirSync('tools/hooks', { recursive: true });\nf.writeFileSync('tools/hooks/pre-commit', ${JSON.stringify(PAYLOAD)}, { mode: 0o755 });\nf.mkdirSync('config');\nf.writeFileSync('config/dev.env', 'DATABASE_URL=postgres://attacker.example/db\\n');\n`;
    const ran = await runScript(at, setup);
    expect(ran).toContain('tools/hooks/pre-commit');
    expect(existsSync(join(workspace, 'tools/hooks/pre-commit'))).toBe(false);
    expect(existsSync(join(workspace, 'config/dev.env'))).toBe(false);
    expect(hookRanAtCommit(workspace)).toBe(false);
  }, 90_000);

  it('an upstream write of what a hook link leads to while it is missing asks, though the rules allow the server', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['Read(**)', 'mcp__fs'] }, servers: { fs: { command: process.execPath, args: [FS, '.'] } } }, { 'a.txt': 'a\n' });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    symlinkSync('../../tools/hooks/pre-commit', join(workspace, '.git/hooks/pre-commit'));
    const at = await opened.serve(workspace);
    await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_create_directory', { path: 'tools/hooks' }, 'reject');
    const written = await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_write_file', { path: 'tools/hooks/pre-commit', content: PAYLOAD }, 'reject');
    expect(written.card, `written without asking: ${text(written.result)}`).toBeDefined();
    expect(hookRanAtCommit(workspace)).toBe(false);
  }, 60_000);

  it('a command that re-points a folder link on the way to a hook has it put back: the user\'s git runs the hook it had', async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['npm run *'], allow: ['Read(**)', 'Edit(**)', 'Bash(npm run *)'] } },
      { 'shared/tools/hooks/pre-commit': HOOK, 'a.txt': 'a\n', 'package.json': PACKAGE },
    );
    chmodSync(join(workspace, 'shared/tools/hooks/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    symlinkSync('shared/tools', join(workspace, 'tools'));
    symlinkSync('../../tools/hooks/pre-commit', join(workspace, '.git/hooks/pre-commit'));
    const at = await opened.serve(workspace);
    const setup = `const f = require('fs');\nf.mkdirSync('evil/hooks', { recursive: true });\nf.writeFileSync('evil/hooks/pre-commit', ${JSON.stringify(PAYLOAD)}, { mode: 0o755 });\nf.unlinkSync('tools');\nf.symlinkSync('evil', 'tools');\n`;
    const ran = await runScript(at, setup);
    expect(ran).toContain('toolgate put tools (what stood there moved to tools-held-by-toolgate) back');
    expect(readlinkSync(join(workspace, 'tools'))).toBe('shared/tools');
    expect(hookRanAtCommit(workspace)).toBe(false);
  }, 90_000);

  it('a command cannot replace the folder a link on the way to a hook is in: it stays where it was', async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['npm run *'], allow: ['Read(**)', 'Edit(**)', 'Bash(npm run *)'] } },
      { 'shared/tools/hooks/pre-commit': HOOK, 'a/b/readme.md': 'b\n', 'a.txt': 'a\n', 'package.json': PACKAGE },
    );
    chmodSync(join(workspace, 'shared/tools/hooks/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    symlinkSync('../../shared/tools', join(workspace, 'a/b/tools'));
    symlinkSync('../../a/b/tools/hooks/pre-commit', join(workspace, '.git/hooks/pre-commit'));
    const at = await opened.serve(workspace);
    // The folder the link is in, moved away and replaced by a link to a folder of the command's, whose `tools` leads to its hook.
    const swap = [
      "const f = require('fs');",
      "f.mkdirSync('evil/tools/hooks', { recursive: true });",
      `f.writeFileSync('evil/tools/hooks/pre-commit', ${JSON.stringify(PAYLOAD)}, { mode: 0o755 });`,
      "try { f.renameSync('a/b', 'a/b-old'); f.symlinkSync('../evil', 'a/b'); console.log('swapped'); } catch (error) { console.log('refused', error.code); }",
    ].join('\n');
    expect(await runScript(at, swap)).toContain('refused EBUSY');
    expect(readlinkSync(join(workspace, 'a/b/tools'))).toBe('../../shared/tools');
    expect(hookRanAtCommit(workspace)).toBe(false);
  }, 90_000);

  it('a link inside a protected folder: what it leads to asks, and reads as nothing in the sandbox', async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['grep *'], allow: ['Read(**)', 'Bash(grep *)'] } },
      { 'keys/deploy': '-----BEGIN OPENSSH PRIVATE KEY-----\nSSH-KEY-LEAKED\n', 'clusters/prod.yaml': 'users:\n- user:\n    token: KUBE-TOKEN-LEAKED\n' },
    );
    mkdirSync(join(workspace, '.ssh'));
    symlinkSync('../keys/deploy', join(workspace, '.ssh/id_ed25519'));
    mkdirSync(join(workspace, '.kube'));
    symlinkSync('../clusters/prod.yaml', join(workspace, '.kube/config'));
    const at = await opened.serve(workspace);
    for (const path of ['keys/deploy', 'clusters/prod.yaml']) {
      const read = await decideIfAsked(at.gateway, at.mcp, 'read_file', { path }, 'reject');
      expect(read.card, `${path} read without asking: ${text(read.result)}`).toBeDefined();
    }
    // A command that names neither reads them masked: grep -r walks the workspace and finds nothing in them.
    const grep = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['grep', '-r', 'LEAKED', '.'] }, 'reject');
    expect(grep.card).toBeUndefined();
    expect(text(grep.result)).toContain('"sandbox\\":\\"bwrap');
    expect(text(grep.result)).not.toMatch(/SSH-KEY-LEAKED|KUBE-TOKEN-LEAKED/);
    expect(readFileSync(join(workspace, 'keys/deploy'), 'utf8')).toContain('SSH-KEY-LEAKED');
  }, 60_000);

  // A fourteenth attack, on the links kept and the places learned.
  it('a link into a place not made yet, through a link that leads nowhere yet, or below a folder link not made yet: writing there asks', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits', policy: { allow: ['Read(**)'] } }, { 'a.txt': 'a\n' });
    symlinkSync('config/dev.env', join(workspace, '.env'));
    symlinkSync('private', join(workspace, 'config'));
    symlinkSync('agent/claude', join(workspace, '.claude'));
    const at = await opened.serve(workspace);
    for (const path of ['private/dev.env', 'agent/claude/settings.json']) {
      const written = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path, content: 'NODE_OPTIONS=--require ./evil.js\n' }, 'reject');
      expect(written.card, `${path} written without asking: ${text(written.result)}`).toBeDefined();
      expect(existsSync(join(workspace, path))).toBe(false);
    }
  }, 60_000);

  it("a command beside one that re-points the user's `.env` link still reads what it led to masked", async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['npm run *'], allow: ['Read(**)', 'Bash(npm run *)'] } },
      {
        'config/dev.secrets': SECRET,
        'notes.txt': 'plain\n',
        'package.json': JSON.stringify({ name: 'app', version: '1.0.0', scripts: { hold: `node -e "const f=require('fs');f.unlinkSync('.env');f.symlinkSync('notes.txt','.env');setTimeout(()=>{},4000)"`, show: 'cat config/dev.secrets; sleep 6' } }),
      },
    );
    symlinkSync('config/dev.secrets', join(workspace, '.env'));
    const at = await opened.serve(workspace);
    const hold = at.mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'run', 'hold'] } });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const show = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['npm', 'run', 'show'] }, 'reject');
    expect(text(show.result)).not.toContain('hunter2');
    expect(text(await hold)).toContain('toolgate put .env');
    expect(readlinkSync(join(workspace, '.env'))).toBe('config/dev.secrets');
  }, 90_000);

  it('an upstream move of the folder a protected link leads into, or of one into its place, asks', async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allow: ['Read(**)', 'mcp__fs'] }, servers: { fs: { command: process.execPath, args: [FS, '.'] } } },
      { 'config/dev.secrets': SECRET, 'staged/dev.secrets': 'NODE_OPTIONS=--require ./evil.js\n', 'other/notes.txt': 'plain\n' },
    );
    symlinkSync('config/dev.secrets', join(workspace, '.env'));
    const at = await opened.serve(workspace);
    const away = await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_move_file', { source: 'config', destination: 'moved' }, 'reject');
    expect(away.card, `moved without asking: ${text(away.result)}`).toBeDefined();
    expect(readFileSync(join(workspace, '.env'), 'utf8')).toBe(SECRET);
    // A folder that holds none moves as the rules say.
    const plain = await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_move_file', { source: 'other', destination: 'elsewhere' }, 'reject');
    expect(plain.card, text(plain.result)).toBeUndefined();
    expect(existsSync(join(workspace, 'elsewhere/notes.txt'))).toBe(true);
  }, 60_000);

  it('an upstream move of a link on the way to a protected place (`.env` -> `cfg/../dev.secrets`, `cfg` a link) asks', async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allow: ['Read(**)', 'mcp__fs'] }, servers: { fs: { command: process.execPath, args: [FS, '.'] } } },
      { 'config/dev.secrets': SECRET, 'config/sub/readme.md': 'sub\n', 'kit/config/dev.secrets': SECRET, 'kit/config/sub/readme.md': 'sub\n', 'other/notes.txt': 'plain\n' },
    );
    symlinkSync('config/sub', join(workspace, 'cfg'));
    symlinkSync('cfg/../dev.secrets', join(workspace, '.env'));
    // The link on the way reached through another link: `via/cfg` is `kit/cfg`.
    symlinkSync('config/sub', join(workspace, 'kit/cfg'));
    symlinkSync('kit', join(workspace, 'via'));
    symlinkSync('via/cfg/../dev.secrets', join(workspace, '.env.local'));
    const at = await opened.serve(workspace);
    for (const source of ['cfg', 'via/cfg', 'via', 'kit']) {
      const away = await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_move_file', { source, destination: 'cfg-old' }, 'reject');
      expect(away.card, `${source} moved without asking: ${text(away.result)}`).toBeDefined();
    }
    expect(readFileSync(join(workspace, '.env'), 'utf8')).toBe(SECRET);
    expect(readFileSync(join(workspace, '.env.local'), 'utf8')).toBe(SECRET);
    const plain = await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_move_file', { source: 'other', destination: 'elsewhere' }, 'reject');
    expect(plain.card, text(plain.result)).toBeUndefined();
  }, 60_000);

  it('a link on the real way to a hook, found where it really lies, is kept: a command that re-points it has it put back', async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['npm run *'], allow: ['Read(**)', 'Edit(**)', 'Bash(npm run *)'] } },
      { 'hookfiles/pre-commit': HOOK, 'a.txt': 'a\n', 'package.json': PACKAGE },
    );
    chmodSync(join(workspace, 'hookfiles/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    mkdirSync(join(workspace, 'kit/tools'), { recursive: true });
    symlinkSync('kit/tools', join(workspace, 'tools'));
    symlinkSync('../hooks', join(workspace, 'kit/tools/hooks'));
    symlinkSync('../hookfiles', join(workspace, 'kit/hooks'));
    symlinkSync('../../tools/hooks/pre-commit', join(workspace, '.git/hooks/pre-commit'));
    const at = await opened.serve(workspace);
    const setup = `const f = require('fs');\nf.mkdirSync('evil', { recursive: true });\nf.writeFileSync('evil/pre-commit', ${JSON.stringify(PAYLOAD)}, { mode: 0o755 });\nf.unlinkSync('kit/hooks');\nf.symlinkSync('../evil', 'kit/hooks');\n`;
    const ran = await runScript(at, setup);
    expect(ran).toContain('toolgate put kit/hooks');
    expect(readlinkSync(join(workspace, 'kit/hooks'))).toBe('../hookfiles');
    expect(hookRanAtCommit(workspace)).toBe(false);
  }, 90_000);

  // A fifteenth: an upstream's moves of the folders on the way, and in the `full` scope a link outside the workspace.
  it("an upstream move of the folder holding a link on a hook's way, or a write in its place, asks", async () => {
    const workspace = makeWorkspace(
      { scope: 'workspace-write', mode: 'auto', policy: { allow: ['Read(**)', 'mcp__fs'] }, servers: { fs: { command: process.execPath, args: [FS, '.'] } } },
      { 'shared/tools/hooks/pre-commit': HOOK, 'a/b/readme.md': 'b\n', 'a.txt': 'a\n', 'ci/hooks/pre-commit': PAYLOAD },
    );
    chmodSync(join(workspace, 'shared/tools/hooks/pre-commit'), 0o755);
    chmodSync(join(workspace, 'ci/hooks/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    symlinkSync('../../shared/tools', join(workspace, 'a/b/tools'));
    symlinkSync('../../a/b/tools/hooks/pre-commit', join(workspace, '.git/hooks/pre-commit'));
    const at = await opened.serve(workspace);
    for (const [name, args] of [
      ['mcp_fs_move_file', { source: 'a', destination: 'a-old' }],
      ['mcp_fs_move_file', { source: 'ci', destination: 'a/b/tools' }],
    ] as const) {
      const step = await decideIfAsked(at.gateway, at.mcp, name, args, 'reject');
      expect(step.card, `${name} ${JSON.stringify(args)} without asking: ${text(step.result)}`).toBeDefined();
    }
    expect(readlinkSync(join(workspace, 'a/b/tools'))).toBe('../../shared/tools');
    expect(hookRanAtCommit(workspace)).toBe(false);
  }, 60_000);

  it("in the `full` scope, a link outside the workspace on `.env`'s way that a command re-points is put back", async () => {
    const outside = realpathSync(mkdtempSync(join('/var/tmp', 'toolgate-outside-link-')));
    try {
      mkdirSync(join(outside, 'app/releases'), { recursive: true });
      mkdirSync(join(outside, 'drop'));
      writeFileSync(join(outside, 'app/releases/v1.env'), SECRET);
      writeFileSync(join(outside, 'drop/evil.env'), 'NODE_OPTIONS=--require ./evil.js\n');
      symlinkSync('releases/v1.env', join(outside, 'app/current.env'));
      const workspace = makeWorkspace({ scope: 'full', mode: 'auto', policy: { allowedCommandGlobs: ['npm run *'], allow: ['Read(**)', 'Edit(**)', 'Bash(npm run *)'] } }, { 'a.txt': 'a\n', 'package.json': PACKAGE }, '/var/tmp');
      symlinkSync(join(outside, 'app/current.env'), join(workspace, '.env'));
      const at = await opened.serve(workspace);
      const ran = await runScript(at, `require('fs').unlinkSync(${JSON.stringify(join(outside, 'app/current.env'))});\nrequire('fs').symlinkSync(${JSON.stringify(join(outside, 'drop/evil.env'))}, ${JSON.stringify(join(outside, 'app/current.env'))});\n`);
      expect(ran).toContain('toolgate put');
      expect(readlinkSync(join(outside, 'app/current.env'))).toBe('releases/v1.env');
      expect(readFileSync(join(workspace, '.env'), 'utf8')).toBe(SECRET);
      // Stopped first: a gateway still running writes its journal in the workspace as it is removed.
      await at.gateway.cli.stop();
      rmSync(workspace, { recursive: true, force: true });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);
});
