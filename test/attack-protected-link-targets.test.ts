import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, makeWorkspace } from './support/serve-gateway.js';

// A hostile model against a workspace where a protected name is a link to a file of an ordinary name: the user's
// `.env` a link to `config/dev.secrets`, the user's hook `.git/hooks/pre-commit` a link to `tools/hooks/pre-commit`
// (a common way to keep hooks in the work tree). The sandbox masked the `.env` link's target, but the file tools
// judged the target by its own name: under `Read(**)` in `auto`, `read_file config/dev.secrets` read the secrets,
// and in `accept-edits` `write_file tools/hooks/pre-commit` changed what the user's git runs at the next commit, as
// did a command allowed by a glob. Each drives `toolgate serve` with the MCP SDK client and the console's API.

const SECRET = 'DB_PASSWORD=hunter2-LEAKED\n';
const HOOK = '#!/bin/sh\nexit 0\n';
const PAYLOAD = '#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/PWNED_BY_HOOK"\n';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

/** A repository whose pre-commit hook is a link to `tools/hooks/pre-commit`. */
function linkedHookWorkspace(config: object): string {
  const workspace = makeWorkspace(config, { 'tools/hooks/pre-commit': HOOK });
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  rmSync(join(workspace, '.git/hooks'), { recursive: true, force: true });
  mkdirSync(join(workspace, '.git/hooks'));
  symlinkSync('../../tools/hooks/pre-commit', join(workspace, '.git/hooks/pre-commit'));
  return workspace;
}

describe('attack: the file a protected name links to', () => {
  it('`.env` a link to config/dev.secrets: reading or writing config/dev.secrets asks, as `.env` does', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['Read(**)', 'Edit(**)'] } }, { 'config/dev.secrets': SECRET, 'notes.txt': 'plain\n' });
    symlinkSync('config/dev.secrets', join(workspace, '.env'));
    const at = await opened.serve(workspace);
    const read = await decideIfAsked(at.gateway, at.mcp, 'read_file', { path: 'config/dev.secrets' }, 'reject');
    expect(read.card, `read without asking: ${text(read.result)}`).toBeDefined();
    expect(read.card?.reasons.protectedPath).toBe(true);
    expect(text(read.result)).not.toContain('hunter2');
    const write = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'config/dev.secrets', content: 'DB_PASSWORD=\n' }, 'reject');
    expect(write.card).toBeDefined();
    expect(readFileSync(join(workspace, 'config/dev.secrets'), 'utf8')).toBe(SECRET);
    // An ordinary file still reads as the rules say, unasked.
    const plain = await decideIfAsked(at.gateway, at.mcp, 'read_file', { path: 'notes.txt' }, 'reject');
    expect(plain.card).toBeUndefined();
    expect(text(plain.result)).toContain('plain');
  }, 60_000);

  it('`.env` a link into a folder named in decomposed Unicode: the filesystem server\'s tools spelling it composed ask, as they do for it as it is', async () => {
    const decomposed = 'cafe\u0301';
    const composed = 'caf\u00e9';
    const server = { command: process.execPath, args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), '.'] };
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['Read(**)', 'mcp__fs'] }, servers: { fs: server } }, { [`${decomposed}/dev.secrets`]: SECRET });
    symlinkSync(`${decomposed}/dev.secrets`, join(workspace, '.env'));
    const at = await opened.serve(workspace);
    // The server opens a missing name as the one name of its folder equal to it after NFC normalisation.
    for (const folder of [decomposed, composed]) {
      const write = await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_write_file', { path: `${folder}/dev.secrets`, content: 'NODE_OPTIONS=--require ./evil.js\n' }, 'reject');
      expect(write.card, `${JSON.stringify(folder)} written without asking: ${text(write.result)}`).toBeDefined();
      const read = await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_read_text_file', { path: `${folder}/dev.secrets` }, 'reject');
      expect(read.card, `${JSON.stringify(folder)} read without asking`).toBeDefined();
      const moved = await decideIfAsked(at.gateway, at.mcp, 'mcp_fs_move_file', { source: folder, destination: 'moved' }, 'reject');
      expect(moved.card, `${JSON.stringify(folder)} moved without asking`).toBeDefined();
    }
    expect(readFileSync(join(workspace, '.env'), 'utf8')).toBe(SECRET);
  }, 60_000);

  it('`.ssh` a link to a folder: a file in it asks; a hook link that leads nowhere yet: creating its target asks', async () => {
    const workspace = linkedHookWorkspace({ scope: 'workspace-write', mode: 'accept-edits', policy: { allow: ['Read(**)'] } });
    mkdirSync(join(workspace, 'dotfiles/ssh'), { recursive: true });
    writeFileSync(join(workspace, 'dotfiles/ssh/config'), 'Host prod\n  IdentityFile ~/.ssh/prod\n');
    symlinkSync('dotfiles/ssh', join(workspace, '.ssh'));
    symlinkSync('../../tools/hooks/post-checkout', join(workspace, '.git/hooks/post-checkout'));
    const at = await opened.serve(workspace);
    const read = await decideIfAsked(at.gateway, at.mcp, 'read_file', { path: 'dotfiles/ssh/config' }, 'reject');
    expect(read.card, `read without asking: ${text(read.result)}`).toBeDefined();
    const planted = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'tools/hooks/post-checkout', content: PAYLOAD }, 'reject');
    expect(planted.card, `written without asking: ${text(planted.result)}`).toBeDefined();
    expect(existsSync(join(workspace, 'tools/hooks/post-checkout'))).toBe(false);
  }, 60_000);

  it('a hook linked into the work tree: write_file of its target asks in accept-edits, and nothing is written when refused', async () => {
    const workspace = linkedHookWorkspace({ scope: 'workspace-write', mode: 'accept-edits' });
    const at = await opened.serve(workspace);
    const written = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'tools/hooks/pre-commit', content: PAYLOAD }, 'reject');
    expect(written.card, `written without asking: ${text(written.result)}`).toBeDefined();
    expect(readFileSync(join(workspace, '.git/hooks/pre-commit'), 'utf8')).toBe(HOOK);
  }, 60_000);

  it('a hook linked into the work tree: a command allowed by a glob cannot write its target', async () => {
    const workspace = linkedHookWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['cp *'], allow: ['Bash(cp *)'] } });
    mkdirSync(join(workspace, 'staged/tools/hooks'), { recursive: true });
    writeFileSync(join(workspace, 'staged/tools/hooks/pre-commit'), PAYLOAD);
    const at = await opened.serve(workspace);
    // The copy names a folder: the hook's target is written by a name no argument spells.
    const ran = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['cp', '-r', 'staged/tools', '.'] }, 'reject');
    expect(ran.card).toBeUndefined();
    // It ran, and the file it would have changed is held: bwrap binds it read-only.
    expect(text(ran.result)).toMatch(/cannot create regular file '\.\/tools\/hooks\/pre-commit': Read-only file system/);
    expect(readFileSync(join(workspace, '.git/hooks/pre-commit'), 'utf8')).toBe(HOOK);
  }, 60_000);

  // A fifteenth attack: one link the repository ships, to `/`, put the walk past its bound, and the file tools judged by names alone.
  it('a workspace whose walk goes past its bound through a link to `/`: reading what `.env` links to still asks', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allow: ['Read(**)'] } }, { 'config/dev.secrets': SECRET, 'notes.txt': 'plain\n' });
    symlinkSync('config/dev.secrets', join(workspace, '.env'));
    symlinkSync('/', join(workspace, 'vendor'));
    const at = await opened.serve(workspace);
    const read = await decideIfAsked(at.gateway, at.mcp, 'read_file', { path: 'config/dev.secrets' }, 'reject');
    expect(read.card, `read without asking: ${text(read.result)}`).toBeDefined();
    expect(text(read.result)).not.toContain('hunter2');
    const plain = await decideIfAsked(at.gateway, at.mcp, 'read_file', { path: 'notes.txt' }, 'reject');
    expect(plain.card).toBeUndefined();
  }, 60_000);
});
