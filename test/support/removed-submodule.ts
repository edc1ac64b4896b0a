import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { userGit } from './served-repository.js';

/**
 * The user's repository as a removed submodule leaves it: `vendor/x` a
 * submodule (from `upstream`, a folder this makes a repository of) one commit
 * ago, removed since, and its clone kept in place, untracked, with its own
 * git folder. The user's checkout of the previous commit lists it again.
 */
export function withRemovedSubmodule(workspace: string, upstream: string): void {
  execFileSync('git', ['init', '-q', upstream]);
  userGit(upstream, 'commit', '-q', '--allow-empty', '-m', 'upstream');
  userGit(upstream, 'commit', '-q', '--allow-empty', '-m', 'upstream again');
  userGit(workspace, 'commit', '-q', '--allow-empty', '-m', 'start');
  userGit(workspace, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, 'vendor/x');
  userGit(workspace, 'commit', '-q', '-m', 'vendor x');
  userGit(workspace, 'rm', '-q', '--cached', 'vendor/x');
  userGit(workspace, 'rm', '-q', '--cached', '.gitmodules');
  userGit(workspace, 'commit', '-q', '-m', 'vendor x no longer a submodule');
  // The clone stays, with its own git folder: what git absorbed into .git/modules goes back in place.
  rmSync(join(workspace, 'vendor', 'x', '.git'));
  execFileSync('cp', ['-r', join(workspace, '.git', 'modules', 'vendor', 'x'), join(workspace, 'vendor', 'x', '.git')]);
  userGit(workspace, 'config', '--file', join(workspace, 'vendor', 'x', '.git', 'config'), '--unset', 'core.worktree');
  rmSync(join(workspace, '.git', 'modules'), { recursive: true });
  rmSync(join(workspace, '.gitmodules'));
}
