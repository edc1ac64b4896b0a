import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace, type ServedGateway } from './support/serve-gateway.js';

// A hostile model in a workspace that is a package of a monorepo: husky's documented set-up for a project not at the
// repository's top (`cd .. && husky frontend/.husky`) sets `core.hooksPath = frontend/.husky/_` in the `.git/config`
// of the folder above the workspace. The workspace has no `.git` of its own, yet `.husky/pre-commit` in it is what
// the user's git runs at the next commit, outside toolgate and its sandbox. Through `toolgate serve` and the SDK client.

const PAYLOAD = '#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/PWNED_BY_HOOK"\n';
/** What husky 9 installs as `.husky/_/h`: every hook of `.husky/_` runs the script of its name in `.husky` with sh. */
const HUSKY_RUNNER = '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

async function start(workspace: string): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveWorkspace(workspace));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

/** A repository whose package, the workspace, husky set up from the top: the repository and the workspace. */
function huskyPackage(config: object, files: Record<string, string> = {}): { repo: string; workspace: string } {
  const repo = mkdtempSync(join(tmpdir(), 'toolgate-monorepo-'));
  execFileSync('git', ['init', '-q'], { cwd: repo });
  const workspace = makeWorkspace(config, { '.husky/_/h': HUSKY_RUNNER, '.husky/_/pre-commit': '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n', 'notes.txt': 'plain\n', ...files }, repo);
  for (const name of ['h', 'pre-commit']) chmodSync(join(workspace, '.husky/_', name), 0o755);
  execFileSync('git', ['config', 'core.hooksPath', `${basename(workspace)}/.husky/_`], { cwd: repo });
  return { repo, workspace };
}

/** The user's own commit from the package, outside toolgate: its hooks run. */
function userCommits(workspace: string): void {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' };
  execFileSync('git', ['add', 'notes.txt'], { cwd: workspace, env });
  execFileSync('git', ['commit', '-q', '-m', 'user'], { cwd: workspace, env });
}

describe('attack: a workspace that is a package of a monorepo husky set up from the top', () => {
  it('in accept-edits, write_file of .husky/pre-commit asks as protected, and rejected, the user\'s next commit runs no hook of the model\'s', async () => {
    const { repo, workspace } = huskyPackage({ scope: 'workspace-write', mode: 'accept-edits' });
    const at = await start(workspace);
    const written = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: '.husky/pre-commit', content: PAYLOAD }, 'reject');
    userCommits(workspace);
    expect(existsSync(join(repo, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(written.result)}`).toBe(false);
    expect(written.card?.reasons.protectedPath).toBe(true);
    // An ordinary edit still runs unasked.
    const plain = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'notes.txt', content: 'edited\n' }, 'reject');
    expect(plain.card).toBeUndefined();
  }, 60_000);

  it('a command allowed by a glob cannot put a hook there by a name no argument spells', async () => {
    const { repo, workspace } = huskyPackage({ scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['cp *'], allow: ['Bash(cp *)'] } }, { 'staged/.husky/pre-commit': PAYLOAD });
    writeFileSync(join(workspace, '.husky/pre-commit'), '#!/bin/sh\nexit 0\n');
    const at = await start(workspace);
    const ran = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['cp', '-r', 'staged/.husky', '.'] }, 'reject');
    expect(ran.card).toBeUndefined();
    userCommits(workspace);
    expect(existsSync(join(repo, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(ran.result)}`).toBe(false);
    expect(text(ran.result)).toMatch(/Read-only file system/);
    expect(readFileSync(join(workspace, '.husky/pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  }, 60_000);
});
