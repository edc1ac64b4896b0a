import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { useRepositoryTemplate } from './support/repository-template.js';
import { closeAfterEach } from './support/serve-gateway.js';
import { serveRepository, userGit } from './support/served-repository.js';

// The user's repository has submodules: `libs/sub`, checked out (its repository in `.git/modules/libs/sub`, named by
// the `.git` file in its folder), and `lib2`, not checked out (its folder empty, its old repository left in
// `.git/modules/lib2`). The user's own `git status` enters every submodule checked out, with that repository's
// configuration, and `git submodule update` takes up what `.git/modules` holds for one that is not. A script the
// policy lets through (`node *`) tries every way to have either run a program, and then the user's git runs.

const opened = closeAfterEach();
const attackHome = useAttackHomes('toolgate-git-submodules-home');
const upstreams: string[] = [];
afterAll(() => {
  for (const folder of upstreams) rmSync(folder, { recursive: true, force: true });
});

/** Each way in, by name: what it writes, and the marker its program would leave. */
const ATTACK_JS = `
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const git = (...args) => execFileSync('git', args, { stdio: 'pipe', encoding: 'utf8' }).trim();
const dot = ['.', 'git'].join('');
const runs = (name) => '[core]\\n\\tfsmonitor = "touch ' + path.resolve('PWNED-' + name) + '; false"\\n';
const repositoryAt = (folder, name) => {
  git('init', '-q', folder);
  git('-C', folder, '-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit', '-q', '--allow-empty', '-m', 'm');
  fs.appendFileSync(folder + '/' + dot + '/config', runs(name));
};
const ways = {
  'module-config': () => fs.appendFileSync(dot + '/modules/libs/sub/config', runs('module-config')),
  'module-worktree-config': () => fs.writeFileSync(dot + '/modules/libs/sub/config.worktree', runs('module-worktree-config')),
  'module-commondir': () => {
    repositoryAt('common', 'module-commondir');
    fs.writeFileSync(dot + '/modules/libs/sub/commondir', path.resolve('common', dot) + '\\n');
  },
  'gitfile': () => {
    repositoryAt('elsewhere', 'gitfile');
    fs.writeFileSync('libs/sub/' + dot, 'gitdir: ' + path.resolve('elsewhere', dot) + '\\n');
  },
  'folder-replaced': () => {
    fs.renameSync('libs/sub', 'sub-moved');
    repositoryAt('libs/sub', 'folder-replaced');
  },
  'parent-replaced': () => {
    fs.renameSync('libs', 'libs-moved');
    repositoryAt('libs/sub', 'parent-replaced');
  },
  'folder-removed': () => {
    fs.rmSync('libs/sub', { recursive: true });
    repositoryAt('libs/sub', 'folder-removed');
  },
  // Copies made inside .git: a rename from the workspace into it would cross its mount point.
  'module-replaced': () => {
    fs.cpSync(dot + '/modules/libs/sub', dot + '/module-copy', { recursive: true });
    fs.appendFileSync(dot + '/module-copy/config', runs('module-replaced'));
    fs.renameSync(dot + '/modules/libs/sub', dot + '/module-moved');
    fs.renameSync(dot + '/module-copy', dot + '/modules/libs/sub');
  },
  'modules-replaced': () => {
    fs.cpSync(dot + '/modules', dot + '/modules-copy', { recursive: true });
    fs.appendFileSync(dot + '/modules-copy/libs/sub/config', runs('modules-replaced'));
    fs.renameSync(dot + '/modules', dot + '/modules-moved');
    fs.renameSync(dot + '/modules-copy', dot + '/modules');
  },
  'unpopulated': () => repositoryAt('lib2', 'unpopulated'),
  'taken-up': () => fs.appendFileSync(dot + '/modules/lib2/config', runs('taken-up')),
  'made-for-taking-up': () => {
    fs.rmSync(dot + '/modules/lib2', { recursive: true });
    repositoryAt('lib2-made', 'made-for-taking-up');
    fs.cpSync('lib2-made/' + dot, dot + '/modules/lib2', { recursive: true });
  },
  'nested-entry': () => {
    repositoryAt('libs/sub/inner', 'nested-entry');
    git('-C', 'libs/sub', 'update-index', '--add', '--cacheinfo', '160000,' + git('-C', 'libs/sub/inner', 'rev-parse', 'HEAD') + ',inner');
  },
  'nested-repository': () => repositoryAt('libs/sub/inner', 'nested-repository'),
  'neutral-nested-repository': () => {
    git('init', '-q', 'libs/sub/inner');
    git('-C', 'libs/sub/inner', '-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit', '-q', '--allow-empty', '-m', 'm');
  },
  // A git folder prepared in the working tree, for the agent's own git to make some folder's repository.
  'prepared-git-folder': () => {
    git('init', '-q', '--separate-git-dir=' + path.resolve('prepared'), 'scratch');
    git('-C', 'scratch', '-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit', '-q', '--allow-empty', '-m', 'm');
    fs.appendFileSync('prepared/config', runs('prepared-git-folder'));
    fs.rmSync('scratch', { recursive: true });
  },
  // A submodule's git folder made in .git/modules, and a commit on a branch of its own listing that submodule, made
  // past the index (read-tree, update-index and write-tree on an index file of its own): the user's checkout of the
  // branch and git submodule update take the folder up.
  'planted-for-a-commit': () => {
    repositoryAt('made', 'planted-for-a-commit');
    fs.mkdirSync(dot + '/modules', { recursive: true });
    fs.cpSync('made/' + dot, dot + '/modules/evil', { recursive: true });
    fs.rmSync('made', { recursive: true });
    const own = { ...process.env, GIT_INDEX_FILE: path.resolve('agent-index') };
    const onOwn = (...args) => execFileSync('git', args, { env: own, encoding: 'utf8' }).trim();
    onOwn('read-tree', 'HEAD');
    onOwn('update-index', '--add', '--cacheinfo', '160000,' + git('--git-dir=' + dot + '/modules/evil', 'rev-parse', 'HEAD') + ',evil');
    const listing = execFileSync('git', ['hash-object', '-w', '--stdin'], { input: '[submodule "evil"]\\n\\tpath = evil\\n\\turl = ./evil\\n', encoding: 'utf8' }).trim();
    onOwn('update-index', '--add', '--cacheinfo', '100644,' + listing + ',.gitmodules');
    git('update-ref', 'refs/heads/feature', git('-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit-tree', onOwn('write-tree'), '-p', 'HEAD', '-m', 'agent'));
  },
  // git keeps a submodule's repository at .git/modules/<name>, the name is what .gitmodules says, and git refuses one
  // inside another repository's git folder only while that folder still counts as one (its HEAD there).
  'renamed-into-module': () => {
    const sub = dot + '/modules/libs/sub';
    fs.cpSync(dot + '/modules/lib2', sub + '/evil', { recursive: true });
    fs.appendFileSync(sub + '/evil/config', runs('renamed-into-module'));
    fs.writeFileSync(sub + '/evil/hooks/post-checkout', '#!/bin/sh\\ntouch ' + path.resolve('PWNED-renamed-into-module-hook') + '\\n', { mode: 0o755 });
    fs.renameSync(sub + '/HEAD', sub + '/HEAD.away');
    fs.writeFileSync('.gitmodules', fs.readFileSync('.gitmodules', 'utf8').replace('[submodule "lib2"]', '[submodule "libs/sub/evil"]'));
  },
};
const way = process.argv[2];
try {
  ways[way]();
  console.log(way + ': written');
} catch (error) {
  console.log(way + ': refused ' + (error.code ?? error.status));
}
`;

const WAYS = [
  'module-config',
  'module-worktree-config',
  'module-commondir',
  'gitfile',
  'folder-replaced',
  'parent-replaced',
  'folder-removed',
  'module-replaced',
  'modules-replaced',
  'unpopulated',
  'taken-up',
  'made-for-taking-up',
  'nested-entry',
  'renamed-into-module',
];

/**
 * The user's repository: `libs/sub` checked out, `lib2` not, from a repository outside the workspace. Built once for
 * the file and copied into each workspace; the upstream, outside every workspace, is only read.
 */
const withSubmodules = useRepositoryTemplate('toolgate-submodule-template', (repository) => {
  const upstream = mkdtempSync(join(tmpdir(), 'toolgate-submodule-upstream-'));
  upstreams.push(upstream);
  execFileSync('git', ['init', '-q', upstream]);
  userGit(upstream, 'commit', '-q', '--allow-empty', '-m', 'upstream');
  for (const place of ['libs/sub', 'lib2']) userGit(repository, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, place);
  userGit(repository, 'commit', '-q', '-m', 'submodules');
  userGit(repository, 'submodule', 'deinit', '-q', 'lib2');
  // The user reads per-worktree configuration in the submodule (`config.worktree`), and has none yet.
  userGit(join(repository, 'libs', 'sub'), 'config', 'extensions.worktreeConfig', 'true');
});

describe.each(['workspace-write', 'full'])("attack: a glob-allowed command plants what the user's git runs in a submodule, in %s", (scope) => {
  it.each(WAYS)('%s: the user\'s git status and submodule update run nothing of it', async (way) => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withSubmodules);
    const moduleConfig = readFileSync(join(workspace, '.git', 'modules', 'libs', 'sub', 'config'), 'utf8');
    const result = await run(['node', 'attack.js', way]);
    expect(result).toContain('"sandbox\\":\\"bwrap');
    // The user's git, whether or not it still finds a repository it can read.
    for (const args of [['status'], ['-c', 'protocol.file.allow=always', 'submodule', 'update', '-q', '--init', 'lib2'], ['status']]) {
      try {
        userGit(workspace, ...args);
      } catch {
        // What matters is what it ran.
      }
    }
    expect(readdirSync(workspace).filter((name) => name.startsWith('PWNED')), result).toEqual([]);
    expect(result).toContain(`${way}: refused`);
    expect(readFileSync(join(workspace, '.git', 'modules', 'libs', 'sub', 'config'), 'utf8')).toBe(moduleConfig);
    expect(existsSync(join(workspace, 'libs', 'sub', '.git'))).toBe(true);
  });

  it("a script makes a nested repository in a submodule whose configuration names a program: moved aside before the agent's own git can add it to the submodule's index, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node', 'git'], { 'attack.js': ATTACK_JS }, withSubmodules);
    const results = [await run(['node', 'attack.js', 'nested-repository']), await run(['git', '-C', 'libs/sub', 'add', 'inner'])];
    expect(results[0]).toContain('nested-repository: written');
    expect(results[0]).toContain('movedRepositories\\":[{\\"from\\":\\"libs/sub/inner/.git\\"');
    expect(execFileSync('git', ['ls-files', '--stage'], { cwd: join(workspace, 'libs', 'sub'), encoding: 'utf8' })).not.toContain('160000');
    userGit(workspace, 'status');
    expect(readdirSync(workspace).filter((name) => name.startsWith('PWNED')), results.join('\n')).toEqual([]);
  });

  it("a script makes a nested repository in a submodule that runs nothing, and the agent's own git adds it to the submodule's index: the entry is taken out", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node', 'git'], { 'attack.js': ATTACK_JS }, withSubmodules);
    const results = [await run(['node', 'attack.js', 'neutral-nested-repository']), await run(['git', '-C', 'libs/sub', 'add', 'inner'])];
    expect(results[0]).not.toContain('movedRepositories');
    expect(results[1]).toContain('removedGitlinks\\":[\\"libs/sub/inner\\"]');
    expect(execFileSync('git', ['ls-files', '--stage'], { cwd: join(workspace, 'libs', 'sub'), encoding: 'utf8' })).not.toContain('160000');
    expect(existsSync(join(workspace, 'libs', 'sub', 'inner', '.git'))).toBe(true);
  });

  it.each([
    ['the unpopulated submodule', ['git', '-C', 'lib2', 'init', '-q', '--separate-git-dir=../prepared']],
    ["the workspace's own", ['git', 'init', '-q', '--separate-git-dir=prepared', '.']],
  ])("the agent's git makes a git folder a script prepared the repository of %s (init --separate-git-dir): refused, and the user's git runs nothing of it", async (_label, command) => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node', 'git'], { 'attack.js': ATTACK_JS }, withSubmodules);
    const results = [await run(['node', 'attack.js', 'prepared-git-folder']), await run(command)];
    expect(results[0]).toContain('prepared-git-folder: written');
    for (const args of [['status'], ['commit', '-q', '--allow-empty', '-m', 'after the agent']]) userGit(workspace, ...args);
    expect(readdirSync(workspace).filter((name) => name.startsWith('PWNED')), results.join('\n')).toEqual([]);
    expect(results[1]).toContain('--separate-git-dir');
  });

  it("a script makes a submodule's git folder in .git/modules of a repository without submodules, and a commit listing it: the user's checkout and submodule update run nothing of it", async () => {
    const commit = (workspace: string): void => void userGit(workspace, 'commit', '-q', '--allow-empty', '-m', 'start');
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, commit);
    const result = await run(['node', 'attack.js', 'planted-for-a-commit']);
    for (const args of [['checkout', '-q', 'feature'], ['-c', 'protocol.file.allow=always', 'submodule', 'update', '-q', '--init'], ['status']]) {
      try {
        userGit(workspace, ...args);
      } catch {
        // What matters is what it ran.
      }
    }
    expect(readdirSync(workspace).filter((name) => name.startsWith('PWNED')), result).toEqual([]);
    expect(result).toContain('planted-for-a-commit: refused');
  });

  it("work inside a submodule still runs: a script edits a file there, and the agent's git stages it", async () => {
    const edit = "require('node:fs').writeFileSync('libs/sub/notes.md', 'edited\\n'); console.log('edited');";
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node', 'git'], { 'edit.js': edit }, withSubmodules);
    expect(await run(['node', 'edit.js'])).toContain('edited');
    expect(await run(['git', '-C', 'libs/sub', 'add', 'notes.md'])).toContain('\\"exitCode\\":0');
    expect(await run(['git', '-C', 'libs/sub', 'status', '--short'])).toContain('A  notes.md');
    expect(userGit(workspace, 'status', '--short')).toContain('libs/sub');
  });
});
