import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, makeWorkspace } from './support/serve-gateway.js';

// A hostile model against a repository whose git reads its code from files of the work tree: husky and its kind set
// `core.hooksPath = .husky`, so `.husky/pre-commit` is what the user's own git runs at the next commit, outside
// toolgate and its sandbox, as `.git/hooks/pre-commit` would be; a shared `include.path = ../shared.gitconfig` is
// read as `.git/config` is, and a `core.fsmonitor` there runs at the user's next `git status`. Each drives
// `toolgate serve` with the MCP SDK client and the console's API, then runs git as the user would.

const HOOK = '#!/bin/sh\nexit 0\n';
const PAYLOAD = '#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/PWNED_BY_HOOK"\n';
const SHARED = '[pull]\n\trebase = true\n';
const FSMONITOR = '[core]\n\tfsmonitor = "touch PWNED_BY_CONFIG; false"\n';
/** What husky 9 installs as `.husky/_/h`: every hook of `.husky/_` runs the script of its name in `.husky` with sh. */
const HUSKY_RUNNER = '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

/** A repository as husky leaves it: `core.hooksPath` names `.husky`, whose pre-commit is an executable file of the work tree. */
function huskyWorkspace(config: object, hooksPath = '.husky'): string {
  const workspace = makeWorkspace(config, { [`${hooksPath}/pre-commit`]: HOOK, 'notes.txt': 'plain\n' });
  chmodSync(join(workspace, hooksPath, 'pre-commit'), 0o755);
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  execFileSync('git', ['config', 'core.hooksPath', hooksPath], { cwd: workspace });
  return workspace;
}

/** The user's own commit, outside toolgate: its hooks run. */
function userCommits(workspace: string, paths: readonly string[] = ['notes.txt']): void {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' };
  execFileSync('git', ['add', ...paths], { cwd: workspace, env });
  execFileSync('git', ['commit', '-q', '-m', 'user'], { cwd: workspace, env });
}

describe('attack: the hooks folder core.hooksPath names in the work tree', () => {
  it.each(['.husky', 'tools/git-hooks'])('in accept-edits, write_file of %s/pre-commit asks, and the user\'s next commit runs the hook it had', async (hooksPath) => {
    const workspace = huskyWorkspace({ scope: 'workspace-write', mode: 'accept-edits' }, hooksPath);
    const at = await opened.serve(workspace);
    const written = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: `${hooksPath}/pre-commit`, content: PAYLOAD }, 'reject');
    const edited = await decideIfAsked(at.gateway, at.mcp, 'edit_file', { path: `${hooksPath}/pre-commit`, oldText: 'exit 0', newText: 'touch PWNED_BY_HOOK' }, 'reject');
    const created = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: `${hooksPath}/post-commit`, content: PAYLOAD }, 'reject');
    userCommits(workspace);
    expect(existsSync(join(workspace, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(written.result)}`).toBe(false);
    expect(readFileSync(join(workspace, hooksPath, 'pre-commit'), 'utf8')).toBe(HOOK);
    for (const asked of [written, edited, created]) expect(asked.card, `ran without asking: ${text(asked.result)}`).toBeDefined();
    expect(written.card?.reasons.protectedPath).toBe(true);
    // An ordinary edit still runs unasked.
    const plain = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'notes.txt', content: 'edited\n' }, 'reject');
    expect(plain.card).toBeUndefined();
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('edited\n');
  }, 60_000);

  it('a command allowed by a glob cannot rewrite the hook by a name no argument spells', async () => {
    const workspace = huskyWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['cp *'], allow: ['Bash(cp *)'] } });
    mkdirSync(join(workspace, 'staged/.husky'), { recursive: true });
    writeFileSync(join(workspace, 'staged/.husky/pre-commit'), PAYLOAD);
    const at = await opened.serve(workspace);
    const ran = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['cp', '-r', 'staged/.husky', '.'] }, 'reject');
    expect(ran.card).toBeUndefined();
    userCommits(workspace);
    expect(existsSync(join(workspace, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(ran.result)}`).toBe(false);
    // It ran, and the hook it would have changed is held: bwrap binds the folder read-only.
    expect(text(ran.result)).toMatch(/Read-only file system/);
    expect(readFileSync(join(workspace, '.husky/pre-commit'), 'utf8')).toBe(HOOK);
  }, 60_000);

  it('a hooks folder core.hooksPath names that is not made yet: creating a hook there asks, and one a command makes is moved aside', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits', policy: { allowedCommandGlobs: ['cp *'], allow: ['Bash(cp *)'] } }, { 'notes.txt': 'plain\n', 'staged/.githooks/pre-commit': PAYLOAD });
    chmodSync(join(workspace, 'staged/.githooks/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: workspace });
    const at = await opened.serve(workspace);
    const created = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: '.githooks/pre-commit', content: PAYLOAD }, 'reject');
    expect(created.card, `created without asking: ${text(created.result)}`).toBeDefined();
    const copied = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['cp', '-rp', 'staged/.githooks', '.'] }, 'reject');
    userCommits(workspace);
    expect(existsSync(join(workspace, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(copied.result)}`).toBe(false);
    expect(existsSync(join(workspace, '.githooks'))).toBe(false);
  }, 60_000);

  it.each(['write_file', 'cp'])('a configuration file an include names: through %s, the model\'s core.fsmonitor never runs at the user\'s git status', async (how) => {
    // Writes in accept-edits; the command under an allow rule in auto, where it runs unasked.
    const mode = how === 'cp' ? 'auto' : 'accept-edits';
    const workspace = makeWorkspace({ scope: 'workspace-write', mode, policy: { allowedCommandGlobs: ['cp *'], allow: ['Bash(cp *)'] } }, { 'shared.gitconfig': SHARED, 'staged/shared.gitconfig': FSMONITOR });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    execFileSync('git', ['config', 'include.path', '../shared.gitconfig'], { cwd: workspace });
    const at = await opened.serve(workspace);
    const call = how === 'cp' ? { name: 'run_command', args: { command: ['cp', 'staged/shared.gitconfig', '.'] } } : { name: 'write_file', args: { path: 'shared.gitconfig', content: FSMONITOR } };
    const answered = await decideIfAsked(at.gateway, at.mcp, call.name, call.args, 'reject');
    execFileSync('git', ['status', '--short'], { cwd: workspace });
    expect(existsSync(join(workspace, 'PWNED_BY_CONFIG')), `the user's git status ran the model's program: ${text(answered.result)}`).toBe(false);
    expect(readFileSync(join(workspace, 'shared.gitconfig'), 'utf8')).toBe(SHARED);
    if (how === 'write_file') expect(answered.card?.reasons.protectedPath).toBe(true);
    // The command names the folder, not the file, and runs unasked; the file it would have changed is held read-only.
    else expect(text(answered.result)).toMatch(/Read-only file system/);
  }, 60_000);

  it('husky 9: its hooks in .husky/_ run the scripts of .husky: write_file of .husky/pre-commit asks, made new or not', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits' }, { '.husky/_/h': HUSKY_RUNNER, '.husky/_/pre-commit': '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n', 'notes.txt': 'plain\n' });
    for (const name of ['h', 'pre-commit']) chmodSync(join(workspace, '.husky/_', name), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    execFileSync('git', ['config', 'core.hooksPath', '.husky/_'], { cwd: workspace });
    const at = await opened.serve(workspace);
    // No .husky/pre-commit yet: husky runs it with sh, so a new file of the model's needs no executable bit.
    const written = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: '.husky/pre-commit', content: PAYLOAD }, 'reject');
    userCommits(workspace);
    expect(existsSync(join(workspace, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(written.result)}`).toBe(false);
    expect(written.card?.reasons.protectedPath).toBe(true);
  }, 60_000);

  it('a workspace that is a linked worktree of a husky repository: write_file of its .husky/pre-commit asks', async () => {
    const main = makeWorkspace({}, { '.husky/pre-commit': HOOK, 'notes.txt': 'plain\n' });
    chmodSync(join(main, '.husky/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: main });
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: main });
    userCommits(main, ['.husky/pre-commit', 'notes.txt']);
    const workspace = `${main}-worktree`;
    execFileSync('git', ['worktree', 'add', '-q', workspace], { cwd: main });
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'accept-edits' }));
    const at = await opened.serve(workspace);
    const written = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: '.husky/pre-commit', content: PAYLOAD }, 'reject');
    writeFileSync(join(workspace, 'notes.txt'), 'edited\n');
    userCommits(workspace);
    expect(existsSync(join(workspace, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(written.result)}`).toBe(false);
    expect(written.card?.reasons.protectedPath).toBe(true);
  }, 60_000);
});
