import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { useAttackHomes } from './support/attack-workspace.js';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { withRemovedSubmodule } from './support/removed-submodule.js';
import { useRepositoryTemplate } from './support/repository-template.js';
import { anyProcessHolds } from './support/running-processes.js';
import { serveRepository, userGit } from './support/served-repository.js';

// The user's repository once had a submodule at `vendor/x`, since removed: its history still lists it, and the user
// kept a clone of it there, untracked. A commit that lists a path as a submodule makes the user's git enter whatever
// repository stands there, with that repository's configuration and hooks, as soon as the index lists it: a checkout
// of the old commit, or of any commit a command made past the index. A script the policy lets through (`node *`)
// plants such a repository, or plants code in the one standing there, and then the user's git runs.

const opened = closeAfterEach();
const attackHome = useAttackHomes('toolgate-git-nested-home');
const upstreams: string[] = [];
afterAll(() => {
  for (const folder of upstreams) rmSync(folder, { recursive: true, force: true });
});

/** Each way in, by name: what it writes, and the marker its program would leave. */
const ATTACK_JS = `
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const git = (...args) => execFileSync('git', ['-c', 'user.name=m', '-c', 'user.email=m@example.com', ...args], { stdio: 'pipe', encoding: 'utf8' }).trim();
const dot = ['.', 'git'].join('');
const runs = (name) => '[core]\\n\\tfsmonitor = "touch ' + path.resolve('PWNED-' + name) + '; false"\\n';
const hook = (name) => '#!/bin/sh\\ntouch ' + path.resolve('PWNED-' + name) + '\\n';
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const waitFor = (file) => { for (let i = 0; i < 600 && !fs.existsSync(file); i++) sleep(50); if (!fs.existsSync(file)) throw new Error('no ' + file); };
const repositoryAt = (folder, name) => {
  git('init', '-q', folder);
  git('-C', folder, '-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit', '-q', '--allow-empty', '-m', 'm');
  if (name !== undefined) fs.appendFileSync(folder + '/' + dot + '/config', runs(name));
};
const ways = {
  // A repository made where an old commit lists a submodule.
  'old-history': () => {
    fs.rmSync('vendor/x', { recursive: true });
    repositoryAt('vendor/x', 'old-history');
  },
  // The user's own clone there, its configuration written.
  'tampered': () => fs.appendFileSync('vendor/x/' + dot + '/config', runs('tampered')),
  'hook': () => fs.writeFileSync('vendor/x/' + dot + '/hooks/post-checkout', '#!/bin/sh\\ntouch ' + path.resolve('PWNED-hook') + '\\n', { mode: 0o755 }),
  'include': () => {
    fs.writeFileSync('included.cfg', runs('include'));
    fs.appendFileSync('vendor/x/' + dot + '/config', '[include]\\n\\tpath = ' + path.resolve('included.cfg') + '\\n');
  },
  'worktree-config': () => {
    fs.appendFileSync('vendor/x/' + dot + '/config', '[extensions]\\n\\tworktreeConfig = true\\n');
    fs.writeFileSync('vendor/x/' + dot + '/config.worktree', runs('worktree-config'));
  },
  'commondir': () => {
    repositoryAt('common', 'commondir');
    fs.writeFileSync('vendor/x/' + dot + '/commondir', path.resolve('common', dot) + '\\n');
  },
  // The clone's .git made a file naming a git folder planted in the workspace's own .git, which the walk never enters.
  'gitfile-into-git': () => {
    repositoryAt('made', 'gitfile-into-git');
    fs.cpSync('made/' + dot, dot + '/planted', { recursive: true });
    fs.rmSync('made', { recursive: true });
    fs.rmSync('vendor/x/' + dot, { recursive: true });
    fs.writeFileSync('vendor/x/' + dot, 'gitdir: ' + path.resolve(dot, 'planted') + '\\n');
  },
  'linked': () => {
    repositoryAt('made', 'linked');
    fs.rmSync('vendor/x/' + dot, { recursive: true });
    fs.symlinkSync(path.resolve('made', dot), 'vendor/x/' + dot);
  },
  'moved-in': () => {
    fs.renameSync('vendor/x', 'vendor/x-away');
    repositoryAt('elsewhere', 'moved-in');
    fs.renameSync('elsewhere', 'vendor/x');
  },
  // A new repository, and a commit on a branch of its own listing it, made past the index (an index file of its own).
  // A link at the place leading to a git folder not made yet, then made by a second command in the workspace's .git.
  'link-ahead': () => {
    fs.rmSync('vendor/x/' + dot, { recursive: true });
    fs.symlinkSync(path.resolve(dot, 'later'), 'vendor/x/' + dot);
  },
  'made-later': () => {
    repositoryAt('made', 'made-later');
    fs.cpSync('made/' + dot, dot + '/later', { recursive: true });
    fs.rmSync('made', { recursive: true });
  },
  'moved-back': () => fs.renameSync('vendor/x/' + dot + '-held-by-toolgate', 'vendor/x/' + dot),
  // Every name a .git was once moved aside to is taken first.
  'names-taken': () => {
    fs.mkdirSync('vendor/x/' + dot + '-held-by-toolgate');
    for (let i = 2; i <= 100; i++) fs.mkdirSync('vendor/x/' + dot + '-held-by-toolgate-' + i);
    fs.appendFileSync('vendor/x/' + dot + '/config', runs('names-taken'));
  },
  'nothing': () => {},
  // A repository whose own .git/modules/sub holds a git folder with a hook and fsmonitor; its commit lists sub as a
  // submodule, and a workspace commit made past the index lists the repository. Nothing under a .git is walked.
  'modules-inside': () => {
    git('init', '-q', 'evil');
    git('init', '-q', 'subsrc');
    git('-C', 'subsrc', 'commit', '-q', '--allow-empty', '-m', 's');
    const subSha = git('-C', 'subsrc', 'rev-parse', 'HEAD');
    fs.mkdirSync('evil/' + dot + '/modules', { recursive: true });
    fs.cpSync('subsrc/' + dot, 'evil/' + dot + '/modules/sub', { recursive: true });
    fs.rmSync('subsrc', { recursive: true });
    fs.appendFileSync('evil/' + dot + '/modules/sub/config', runs('modules-inside-fsmonitor'));
    fs.mkdirSync('evil/' + dot + '/modules/sub/hooks', { recursive: true });
    fs.writeFileSync('evil/' + dot + '/modules/sub/hooks/post-checkout', hook('modules-inside-hook'), { mode: 0o755 });
    fs.writeFileSync('evil/.gitmodules', '[submodule "sub"]\\n\\tpath = sub\\n\\turl = ./sub-upstream\\n');
    git('-C', 'evil', 'add', '.gitmodules');
    git('-C', 'evil', 'update-index', '--add', '--cacheinfo', '160000,' + subSha + ',sub');
    git('-C', 'evil', 'commit', '-q', '-m', 'evil');
    const own = { ...process.env, GIT_INDEX_FILE: path.resolve('agent-index') };
    const onOwn = (...args) => execFileSync('git', args, { env: own, encoding: 'utf8' }).trim();
    onOwn('read-tree', 'HEAD');
    fs.writeFileSync('agent-gitmodules', '[submodule "evil"]\\n\\tpath = evil\\n\\turl = ./evil\\n');
    const blob = git('hash-object', '-w', 'agent-gitmodules');
    fs.rmSync('agent-gitmodules');
    onOwn('update-index', '--add', '--cacheinfo', '100644,' + blob + ',.gitmodules');
    onOwn('update-index', '--add', '--cacheinfo', '160000,' + git('-C', 'evil', 'rev-parse', 'HEAD') + ',evil');
    git('update-ref', 'refs/heads/feature', git('commit-tree', onOwn('write-tree'), '-p', 'HEAD', '-m', 'agent'));
    fs.rmSync('agent-index');
  },
  // The user's clone has core.hooksPath = .husky (as husky sets it): the hooks live in its work tree, not its .git.
  'husky': () => {
    fs.mkdirSync('vendor/x/.husky', { recursive: true });
    fs.writeFileSync('vendor/x/.husky/post-checkout', hook('husky'), { mode: 0o755 });
  },
  // The user's clone includes a config file from its work tree (include.path = ../.gitconfig).
  'included-worktree-config': () => fs.writeFileSync('vendor/x/.gitconfig', runs('included-worktree-config')),
  // A repository made in a folder the jail protects (.envs matches **/.env*), made by the command, so not masked while
  // it runs; the walk lists a protected folder whole and never enters it. A commit made past the index lists it.
  'protected-folder': () => {
    git('init', '-q', '.envs/evil');
    git('-C', '.envs/evil', 'commit', '-q', '--allow-empty', '-m', 'e');
    fs.appendFileSync('.envs/evil/' + dot + '/config', runs('protected-folder'));
    const own = { ...process.env, GIT_INDEX_FILE: path.resolve('agent-index') };
    const onOwn = (...args) => execFileSync('git', args, { env: own, encoding: 'utf8' }).trim();
    onOwn('read-tree', 'HEAD');
    onOwn('update-index', '--add', '--cacheinfo', '160000,' + git('-C', '.envs/evil', 'rev-parse', 'HEAD') + ',.envs/evil');
    git('update-ref', 'refs/heads/feature', git('commit-tree', onOwn('write-tree'), '-p', 'HEAD', '-m', 'agent'));
    fs.rmSync('agent-index');
  },
  // Legitimate: a script clones a project with a submodule (from a source made in the same script).
  'clone-recursive': () => {
    git('init', '-q', 'src-sub');
    git('-C', 'src-sub', 'commit', '-q', '--allow-empty', '-m', 's');
    git('init', '-q', 'src-main');
    git('-C', 'src-main', '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', path.resolve('src-sub'), 'sub');
    git('-C', 'src-main', 'commit', '-q', '-m', 'm');
    git('-c', 'protocol.file.allow=always', 'clone', '-q', '--recurse-submodules', path.resolve('src-main'), 'project');
  },
  // The clone's .git folder moved to a plain name and a link left in its place: what git reads stays the same, so the
  // check after this command finds nothing new. A file tool then writes the plain name, with no check after it.
  'relink': () => {
    fs.renameSync('vendor/x/' + dot, 'store');
    fs.symlinkSync('../../store', 'vendor/x/' + dot);
  },
  // A detached child in a new session that writes after the command (and its check) ended.
  'outlive': () => {
    const { spawn } = require('node:child_process');
    const child = spawn('sh', ['-c', 'sleep 3; printf "%s" "$1" >> vendor/x/' + dot + '/config', 'sh', runs('outlive')], { detached: true, stdio: 'ignore' });
    child.unref();
  },
  // Two commands at once: A plants, waits for B to start, hides the .git from its own check and ends; B puts it back.
  'race-a': () => {
    fs.appendFileSync('vendor/x/' + dot + '/config', runs('race'));
    fs.writeFileSync('planted', '');
    waitFor('b-started');
    fs.renameSync('vendor/x/' + dot, 'vendor/x/hidden');
    fs.writeFileSync('a-done', '');
  },
  'race-b': () => {
    fs.writeFileSync('b-started', '');
    waitFor('a-done');
    waitFor('a-checked'); // written by the test once A's call answered: A's check, which runs after A ends, is over
    fs.renameSync('vendor/x/hidden', 'vendor/x/' + dot);
  },
  // A repository nobody lists, its hook a FIFO, which a blocking read would wait on for a writer that never comes.
  'fifo-jam': () => {
    repositoryAt('jam');
    fs.mkdirSync('jam/' + dot + '/hooks', { recursive: true });
    execFileSync('mkfifo', ['jam/' + dot + '/hooks/post-checkout']);
    fs.appendFileSync('vendor/x/' + dot + '/config', runs('fifo-jam'));
  },
  // A repository whose folder is so deep that its .git fits in PATH_MAX but no name beside it does. Its .git is a gitdir
  // file naming a short git folder; a commit made past the index lists it.
  'too-long': () => {
    const base = process.cwd();
    const want = 4080 - base.length - 1; // the folder's absolute path: 4080 bytes; its .git 4085; .git-held-by-toolgate 4102
    const parts = [];
    let left = want;
    while (left > 0) {
      const size = Math.min(200, left);
      const part = size === left ? 'd'.repeat(size) : 'd'.repeat(size - 1);
      parts.push(part);
      left -= part.length + (size === left ? 0 : 1);
    }
    const deep = parts.join('/');
    if (path.resolve(deep).length !== 4080) throw new Error('length ' + path.resolve(deep).length);
    fs.mkdirSync(deep, { recursive: true });
    repositoryAt('made', 'too-long');
    fs.renameSync('made/' + dot, 'store');
    fs.rmSync('made', { recursive: true });
    fs.writeFileSync(path.resolve(deep, dot), 'gitdir: ' + path.resolve('store') + '\\n');
    const own = { ...process.env, GIT_INDEX_FILE: path.resolve('agent-index') };
    const onOwn = (...args) => execFileSync('git', args, { env: own, encoding: 'utf8' }).trim();
    onOwn('read-tree', 'HEAD');
    onOwn('update-index', '--add', '--cacheinfo', '160000,' + git('--git-dir=store', 'rev-parse', 'HEAD') + ',' + deep);
    git('update-ref', 'refs/heads/feature', git('commit-tree', onOwn('write-tree'), '-p', 'HEAD', '-m', 'agent'));
    fs.rmSync('agent-index');
  },
  // A tree deeper than a path can name, beside a planted fsmonitor: the walk after the command cannot finish.
  'deep': () => {
    fs.appendFileSync('vendor/x/' + dot + '/config', runs('deep'));
    const top = process.cwd();
    fs.mkdirSync('deep');
    process.chdir('deep');
    for (let i = 0; i < 30; i++) { fs.mkdirSync('d'.repeat(200)); process.chdir('d'.repeat(200)); }
    process.chdir(top);
  },
  // The clone's work tree moved by a core.worktree in config.worktree, and a hook written where its relative
  // core.hooksPath (the user's) then leads.
  'worktree-hooks': () => {
    fs.appendFileSync('vendor/x/' + dot + '/config', '[extensions]\\n\\tworktreeConfig = true\\n');
    fs.writeFileSync('vendor/x/' + dot + '/config.worktree', '[core]\\n\\tworktree = ' + path.resolve('other') + '\\n');
    fs.mkdirSync('other/.husky', { recursive: true });
    fs.writeFileSync('other/.husky/post-checkout', hook('worktree-hooks'), { mode: 0o755 });
  },
  'agent-commit': () => {
    repositoryAt('evil', 'agent-commit');
    const own = { ...process.env, GIT_INDEX_FILE: path.resolve('agent-index') };
    const onOwn = (...args) => execFileSync('git', args, { env: own, encoding: 'utf8' }).trim();
    onOwn('read-tree', 'HEAD');
    onOwn('update-index', '--add', '--cacheinfo', '160000,' + git('-C', 'evil', 'rev-parse', 'HEAD') + ',evil');
    git('update-ref', 'refs/heads/feature', git('-c', 'user.name=m', '-c', 'user.email=m@example.com', 'commit-tree', onOwn('write-tree'), '-p', 'HEAD', '-m', 'agent'));
    fs.rmSync('agent-index');
  },
};
const way = process.argv[2];
ways[way]();
console.log(way + ': written');
`;

/** The user's checkout of what lists the planted repository, then the git commands that enter it. */
const USER_STEPS: Record<string, readonly (readonly string[])[]> = {
  'agent-commit': [['checkout', '-q', 'feature'], ['status']],
};
const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const OLD_HISTORY_STEPS: readonly (readonly string[])[] = [['checkout', '-q', 'HEAD~1'], ['status'], ['-c', 'protocol.file.allow=always', 'submodule', 'update', '-q', '--init', '--checkout', '--force']];

const RECURSIVE_STEPS: readonly (readonly string[])[] = [['checkout', '-q', 'feature'], ['status'], ['-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--recursive']];

const WAYS = ['old-history', 'tampered', 'hook', 'include', 'worktree-config', 'commondir', 'gitfile-into-git', 'linked', 'moved-in', 'agent-commit'];

/**
 * The user's repository: `vendor/x` a submodule one commit ago, removed since, its clone kept in place untracked.
 * Built once for the file and copied into each workspace; its upstream, outside every workspace, is only read.
 */
const withOldSubmodule = useRepositoryTemplate('toolgate-nested-template', (repository) => {
  const upstream = mkdtempSync(join(tmpdir(), 'toolgate-nested-upstream-'));
  upstreams.push(upstream);
  withRemovedSubmodule(repository, upstream);
});

/** As withOldSubmodule, the user's clone set up as husky sets a project up (core.hooksPath in its work tree). */
function withHuskyClone(workspace: string): void {
  withOldSubmodule(workspace);
  userGit(workspace, 'config', '--file', join(workspace, 'vendor', 'x', '.git', 'config'), 'core.hooksPath', '.husky');
}

/** As withOldSubmodule, the user's clone including a shared config file kept in its work tree. */
function withIncludedClone(workspace: string): void {
  withOldSubmodule(workspace);
  userGit(workspace, 'config', '--file', join(workspace, 'vendor', 'x', '.git', 'config'), 'include.path', '../.gitconfig');
}

/** The user's git, each step, whether or not it succeeds: what matters is what it ran. */
function userSteps(workspace: string, steps: readonly (readonly string[])[]): void {
  for (const args of steps) {
    try {
      userGit(workspace, ...args);
    } catch {
      // What matters is what it ran.
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const pwned = (workspace: string): string[] => readdirSync(workspace).filter((name) => name.startsWith('PWNED'));

describe.each(['workspace-write', 'full'])('attack: a glob-allowed command plants a repository where a commit lists a submodule, in %s', (scope) => {
  it('the user checks out the old commit and runs git status and submodule update: nothing runs before the attack', async () => {
    const { workspace } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace)).toEqual([]);
    expect(userGit(workspace, 'ls-files', '--stage', 'vendor/x')).toContain('160000');
  });

  it.each(WAYS)("%s: the repository is moved aside, and the user's git runs nothing of it", async (way) => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const result = await run(['node', 'attack.js', way]);
    expect(result).toContain(`${way}: written`);
    expect(result).toContain('"sandbox\\":\\"bwrap');
    userSteps(workspace, USER_STEPS[way] ?? OLD_HISTORY_STEPS);
    expect(pwned(workspace), result).toEqual([]);
    const place = way === 'agent-commit' ? 'evil' : 'vendor/x';
    expect(result).toContain('movedRepositories');
    expect(result).toContain(`{\\"from\\":\\"${place}/.git\\",\\"to\\":\\"${place}/.git-held-by-toolgate\\"`);
    expect(existsSync(join(workspace, place, '.git'))).toBe(false);
  });

  it("a link leads the clone's .git to a git folder not there yet, which a second command makes: moved aside after the second, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const results = [await run(['node', 'attack.js', 'link-ahead']), await run(['node', 'attack.js', 'made-later'])];
    expect(results[0]).not.toContain('movedRepositories');
    expect(results[1]).toContain(`{\\"from\\":\\"vendor/x/.git\\",\\"to\\":\\"vendor/x/.git-held-by-toolgate\\",\\"because\\":[\\"config: core.fsmonitor\\"]}`);
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), results.join('\n')).toEqual([]);
  });

  it("a repository moved aside and moved back by the next command is moved aside again", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const results = [await run(['node', 'attack.js', 'tampered']), await run(['node', 'attack.js', 'moved-back'])];
    expect(results[0]).toContain('vendor/x/.git-held-by-toolgate\\"');
    expect(results[1]).toContain('moved-back: written');
    expect(results[1]).toContain(`{\\"from\\":\\"vendor/x/.git\\",\\"to\\":\\"vendor/x/.git-held-by-toolgate\\"`);
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), results.join('\n')).toEqual([]);
  });

  it("the agent's git adds a worktree of the workspace's repository, whose configuration names a hooks folder of the user's: it stays", async () => {
    const hooksPath = (workspace: string): void => {
      withOldSubmodule(workspace);
      userGit(workspace, 'config', 'core.hooksPath', '.githooks');
    };
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['git'], {}, hooksPath);
    const result = await run(['git', 'worktree', 'add', '-q', 'wt']);
    expect(result).toContain('\\"exitCode\\":0');
    expect(result).not.toContain('movedRepositories');
    expect(existsSync(join(workspace, 'wt', '.git'))).toBe(true);
  });

  it("a script makes a repository and commits in it, and edits the user's clone plainly: both stay as they are (and the agent's git adding the new one lists no submodule)", async () => {
    const work = [
      "const { execFileSync } = require('node:child_process');",
      "const git = (...args) => execFileSync('git', ['-c', 'user.name=m', '-c', 'user.email=m@example.com', ...args], { encoding: 'utf8' });",
      "git('init', '-q', 'proj');",
      "require('node:fs').writeFileSync('proj/a.txt', 'a');",
      "git('-C', 'proj', 'add', 'a.txt');",
      "git('-C', 'proj', 'commit', '-q', '-m', 'a');",
      "git('-C', 'proj', 'remote', 'add', 'origin', 'https://example.com/proj.git');",
      "git('-C', 'vendor/x', 'config', 'user.email', 'me@example.com');",
      "console.log('worked');",
    ].join('\n');
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node', 'git'], { 'work.js': work }, withOldSubmodule);
    const result = await run(['node', 'work.js']);
    expect(result).toContain('worked');
    expect(result).not.toContain('movedRepositories');
    // Listed by the agent's git, it is taken out of the index again (the gitlink guard), and stays a repository.
    const added = await run(['git', 'add', 'proj']);
    expect(added).toContain('removedGitlinks\\":[\\"proj\\"]');
    expect(added).not.toContain('movedRepositories');
    expect(execFileSync('git', ['log', '--oneline'], { cwd: join(workspace, 'proj'), encoding: 'utf8' })).toContain(' a');
    expect(readFileSync(join(workspace, 'vendor', 'x', '.git', 'config'), 'utf8')).toContain('me@example.com');
  });

  it("names-taken: the name a .git is moved aside to, and a hundred more, taken first: moved under a name no command can take ahead, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const first = await run(['node', 'attack.js', 'names-taken']);
    const second = await run(['node', 'attack.js', 'nothing']);
    expect(first).toContain('{\\"from\\":\\"vendor/x/.git\\",\\"to\\":\\"vendor/x/.git-held-by-toolgate-');
    expect(second).toContain('nothing: written');
    expect(second).not.toContain('movedRepositories');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), `${first}\n${second}`).toEqual([]);
  });

  it("modules-inside: a repository made with a submodule's git folder planted in its .git/modules, listed by a commit made past the index: moved aside, and the user's submodule update --recursive runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const result = await run(['node', 'attack.js', 'modules-inside']);
    expect(result).toContain('modules-inside: written');
    expect(result).toContain('{\\"from\\":\\"evil/.git\\",\\"to\\":\\"evil/.git-held-by-toolgate\\",\\"because\\":[\\"modules/sub config: core.fsmonitor\\",\\"modules/sub hooks/post-checkout\\"]}');
    userSteps(workspace, RECURSIVE_STEPS);
    expect(pwned(workspace), result).toEqual([]);
  });

  it("husky: the user's clone names a hooks folder in its work tree, and a command writes a hook there: moved aside, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withHuskyClone);
    const result = await run(['node', 'attack.js', 'husky']);
    expect(result).toContain('husky: written');
    expect(result).toContain('\\"because\\":[\\"config: core.hookspath/post-checkout\\"]');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), result).toEqual([]);
  });

  it("included-worktree-config: the user's clone includes a configuration file from its work tree, and a command writes fsmonitor there: moved aside, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withIncludedClone);
    const result = await run(['node', 'attack.js', 'included-worktree-config']);
    expect(result).toContain('included-worktree-config: written');
    expect(result).toContain('\\"because\\":[\\"config: include.path ../.gitconfig: core.fsmonitor\\"]');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), result).toEqual([]);
  });

  it("protected-folder: a repository made in a folder the jail protects, made by the same command, listed by a commit made past the index: moved aside, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const result = await run(['node', 'attack.js', 'protected-folder']);
    expect(result).toContain('protected-folder: written');
    expect(result).toContain('{\\"from\\":\\".envs/evil/.git\\"');
    userSteps(workspace, [['checkout', '-q', 'feature'], ['status']]);
    expect(pwned(workspace), result).toEqual([]);
  });

  it('a script clones a project with a submodule: nothing is moved aside', async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const result = await run(['node', 'attack.js', 'clone-recursive']);
    expect(result).toContain('clone-recursive: written');
    expect(result).not.toContain('movedRepositories');
    expect(existsSync(join(workspace, 'project', 'sub', '.git'))).toBe(true);
  });

  it("write-tool: a command links the clone's .git to a plain folder, and write_file (allowed by Write(**)) writes fsmonitor into its config there: the call fails with the repository moved aside, and the user's git runs nothing of it", async () => {
    const policy = { allowedCommandGlobs: ['node *'], allow: ['Bash(node *)', 'Write(**)'] };
    const workspace = makeWorkspace({ scope, mode: 'auto', policy }, { 'attack.js': ATTACK_JS });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    withOldSubmodule(workspace);
    const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: attackHome() } }));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    opened.client(client);
    const call = async (tool: string, args: Record<string, unknown>): Promise<string> => JSON.stringify((await decideIfAsked(gateway, client, tool, args, 'reject')).result);
    const first = await call('run_command', { command: ['node', 'attack.js', 'relink'] });
    const config = readFileSync(join(workspace, 'store', 'config'), 'utf8');
    const written = await call('write_file', { path: 'store/config', content: `${config}[core]\n\tfsmonitor = "touch ${join(workspace, 'PWNED-write-tool')}; false"\n` });
    expect(first).toContain('relink: written');
    expect(first).not.toContain('movedRepositories');
    expect(written).toContain('"isError":true');
    expect(written).toContain('its .git was moved aside: vendor/x/.git (config: core.fsmonitor) to vendor/x/.git-held-by-toolgate');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), `${first}\n${written}`).toEqual([]);
  });

  it('outlive: a detached child that would write after the command ended dies with it', async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const result = await run(['node', 'attack.js', 'outlive']);
    // Rather than waiting out the child's 3 s: once no process holds its program (its argument names PWNED-outlive),
    // nothing is left that could write. Should it live on, it writes at 3 s and ends, and the checks below see that.
    await expect.poll(() => anyProcessHolds('PWNED-outlive'), { timeout: 10_000, interval: 50 }).toBe(false);
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), result).toEqual([]);
    expect(readFileSync(join(workspace, 'vendor', 'x', '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
  });

  it("race: two commands at once, the second started once the first planted, pass the .git between them: moved aside after the second, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const a = run(['node', 'attack.js', 'race-a']);
    for (let i = 0; i < 200 && !existsSync(join(workspace, 'planted')); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const b = run(['node', 'attack.js', 'race-b']);
    // B puts the .git back only once A's call has answered, so A's check saw it hidden.
    const first = await a;
    writeFileSync(join(workspace, 'a-checked'), '');
    const results = [first, await b];
    expect(results[1]).toContain('race-b: written');
    expect(results[1]).toContain('{\\"from\\":\\"vendor/x/.git\\",\\"to\\":\\"vendor/x/.git-held-by-toolgate\\",\\"because\\":[\\"config: core.fsmonitor\\"]}');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), results.join('\n')).toEqual([]);
  });
  it("fifo-jam: a hook that is a FIFO in another repository, beside a planted fsmonitor: the check reads past it, the repository is moved aside, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const fifo = join(workspace, 'jam', '.git', 'hooks', 'post-checkout');
    const call = run(['node', 'attack.js', 'fifo-jam']);
    let answered: string;
    try {
      answered = await Promise.race([call, sleep(20_000).then(() => 'no answer in 20 s')]);
    } finally {
      // Should a read wait on it, a writer opened and closed gives that read an end, and the server goes on.
      if (existsSync(fifo)) closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
    }
    expect(answered).toContain('{\\"from\\":\\"vendor/x/.git\\",\\"to\\":\\"vendor/x/.git-held-by-toolgate\\",\\"because\\":[\\"config: core.fsmonitor\\"]}');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), answered).toEqual([]);
  }, 60_000);

  it("too-long: a repository so deep that no name beside its .git fits the system's path limit: moved to the workspace's top, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const result = await run(['node', 'attack.js', 'too-long']);
    const again = await run(['node', 'attack.js', 'nothing']);
    userSteps(workspace, [['checkout', '-q', 'feature'], ['status']]);
    expect(pwned(workspace), `${result}\n${again}`).toEqual([]);
    expect(result).toContain('\\"to\\":\\".git-held-by-toolgate-');
    expect(again).not.toContain('movedRepositories');
  });

  it("over-limit: in a workspace past the walk's limit, whose commands are refused, write_file writes fsmonitor into the file the user's clone includes: the call fails with the clone moved aside, and the user's git runs nothing of it", async () => {
    const policy = { allowedCommandGlobs: ['node *'], allow: ['Bash(node *)', 'Write(**)'] };
    const workspace = makeWorkspace({ scope, mode: 'auto', policy, limits: { maskWalkEntries: 5 } }, { 'attack.js': ATTACK_JS });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    withOldSubmodule(workspace);
    userGit(workspace, 'config', '--file', join(workspace, 'vendor', 'x', '.git', 'config'), 'include.path', '../shared.cfg');
    const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: attackHome() } }));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    opened.client(client);
    const call = async (tool: string, args: Record<string, unknown>): Promise<string> => JSON.stringify((await decideIfAsked(gateway, client, tool, args, 'reject')).result);
    const refused = await call('run_command', { command: ['node', 'attack.js', 'nothing'] });
    // A first write elsewhere, held to the repositories around it (none), does not stand for the workspace's.
    expect(await call('write_file', { path: 'notes.txt', content: 'notes\n' })).not.toContain('"isError":true');
    const written = await call('write_file', { path: 'vendor/x/shared.cfg', content: `[core]\n\tfsmonitor = "touch ${join(workspace, 'PWNED-over-limit')}; false"\n` });
    expect(refused).toContain('more entries');
    expect(written).toContain('its .git was moved aside: vendor/x/.git (config: include.path ../shared.cfg: core.fsmonitor)');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), `${refused}\n${written}`).toEqual([]);
  });

  it("deep: a command plants fsmonitor and makes a tree deeper than a path can name: the call fails, saying the workspace was not checked whole, the repository it knew is moved aside all the same, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withOldSubmodule);
    const result = await run(['node', 'attack.js', 'deep']);
    expect(result).toContain('could not be walked whole afterwards');
    expect(existsSync(join(workspace, 'vendor', 'x', '.git-held-by-toolgate'))).toBe(true);
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), result).toEqual([]);
    // Past what a path can name: removed by rm, which walks it folder by folder.
    execFileSync('rm', ['-rf', join(workspace, 'deep')]);
  });

  it("worktree-hooks: the clone's work tree moved by config.worktree, and a hook written where the user's relative core.hooksPath then leads: moved aside, and the user's git runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['node'], { 'attack.js': ATTACK_JS }, withHuskyClone);
    const result = await run(['node', 'attack.js', 'worktree-hooks']);
    expect(result).toContain('worktree-hooks: written');
    expect(result).toContain('{\\"from\\":\\"vendor/x/.git\\"');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), result).toEqual([]);
  });

  it("upstream-write: after a command links the clone's .git to a plain folder, server-filesystem's write_file through the gateway writes fsmonitor into its configuration there: the call fails with the clone moved aside, and the user's git runs nothing of it", async () => {
    const policy = { allowedCommandGlobs: ['node *'], allow: ['Bash(node *)'] };
    const workspace = makeWorkspace({ scope, mode: 'auto', policy, servers: { fs: { command: process.execPath, args: [FILESYSTEM, '.'] } } }, { 'attack.js': ATTACK_JS });
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    withOldSubmodule(workspace);
    const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: attackHome() } }));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    opened.client(client);
    const call = async (tool: string, args: Record<string, unknown>, decision: string): Promise<string> => JSON.stringify((await decideIfAsked(gateway, client, tool, args, decision)).result);
    const first = await call('run_command', { command: ['node', 'attack.js', 'relink'] }, 'reject');
    expect(first).toContain('relink: written');
    const config = readFileSync(join(workspace, 'store', 'config'), 'utf8');
    // Asked, as the upstream tool writes, and approved once: the person approving sees a plain file.
    const written = await call('mcp_fs_write_file', { path: 'store/config', content: `${config}[core]\n\tfsmonitor = "touch ${join(workspace, 'PWNED-upstream')}; false"\n` }, 'once');
    expect(written).toContain('"isError":true');
    expect(written).toContain('its .git was moved aside: vendor/x/.git (config: core.fsmonitor) to vendor/x/.git-held-by-toolgate');
    const after = await call('run_command', { command: ['node', 'attack.js', 'nothing'] }, 'reject');
    userSteps(workspace, OLD_HISTORY_STEPS);
    expect(pwned(workspace), `${first}\n${written}\n${after}`).toEqual([]);
  }, 120_000);

  it("the user's clone has a git-lfs hook, and the agent's git adds a worktree of it: the worktree, which shares the hook, stays", async () => {
    const withLfsHook = (workspace: string): void => {
      withOldSubmodule(workspace);
      execFileSync('sh', ['-c', 'mkdir -p "$1" && printf "#!/bin/sh\\ngit lfs pre-push \\"\\$@\\"\\n" > "$1/pre-push" && chmod +x "$1/pre-push"', 'sh', join(workspace, 'vendor', 'x', '.git', 'hooks')]);
    };
    const { workspace, run } = await serveRepository(opened, attackHome(), scope, ['git'], {}, withLfsHook);
    const result = await run(['git', '-C', 'vendor/x', 'worktree', 'add', '-q', '../wt']);
    expect(result).toContain('\\"exitCode\\":0');
    expect(result).not.toContain('movedRepositories');
    expect(existsSync(join(workspace, 'vendor', 'wt', '.git'))).toBe(true);
  });
});
