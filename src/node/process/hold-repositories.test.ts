import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findProgram } from './find-program.js';
import { createRepositoryHolder, UnheldRepositoryError } from './hold-repositories.js';

const git = findProgram('git', ['/usr/bin', '/bin']) as string;
const made: string[] = [];
const env = { PATH: '/usr/bin:/bin', HOME: '/nonexistent' };

afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const run = (cwd: string, ...args: string[]): string =>
  execFileSync(git, ['-c', 'user.name=u', '-c', 'user.email=u@example.com', '-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8', env, stdio: 'pipe' });

/** A workspace with `libs/sub` checked out, which has `inner` checked out in turn, each from a repository beside it. */
function workspaceWithNestedSubmodules(): string {
  const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-hold-repositories-')));
  made.push(folder);
  for (const name of ['inner', 'sub', 'workspace']) run(folder, 'init', '-q', name);
  run(path.join(folder, 'inner'), 'commit', '-q', '--allow-empty', '-m', 'inner');
  run(path.join(folder, 'sub'), 'submodule', 'add', '-q', path.join(folder, 'inner'), 'inner');
  run(path.join(folder, 'sub'), 'commit', '-q', '-m', 'sub');
  const workspace = path.join(folder, 'workspace');
  run(workspace, 'submodule', 'add', '-q', path.join(folder, 'sub'), 'libs/sub');
  run(workspace, 'submodule', 'update', '-q', '--init', '--recursive');
  run(workspace, 'commit', '-q', '-m', 'workspace');
  return workspace;
}

describe('createRepositoryHolder', () => {
  it("holds a command to every index, nested submodules' included, and names what the sandbox holds of each", async () => {
    const workspace = workspaceWithNestedSubmodules();
    const holder = createRepositoryHolder({ workspace, git, env });
    const entered = await holder.enter('program');
    expect(entered.indexes.map((index) => [index.where, index.gitDir])).toEqual([
      ['', '.git'],
      ['libs/sub', '.git/modules/libs/sub'],
      ['libs/sub/inner', '.git/modules/libs/sub/modules/inner'],
    ]);
    const at = (relative: string): string => path.join(workspace, relative);
    expect(entered.code?.folders).toEqual([at('.git')]);
    expect(entered.code?.readOnly).toEqual([
      ...['hooks', 'config', 'config.worktree', 'commondir', 'modules'].map((name) => at(`.git/${name}`)),
      at('libs/sub/.git'),
      at('.git/modules/libs/sub'),
      at('libs/sub/inner/.git'),
      at('.git/modules/libs/sub/modules/inner'),
    ]);
    expect(await holder.leave(entered)).toEqual({ removed: [], quarantined: [], failed: [] });
    // toolgate's own git, which writes configuration, index and refs, is held to the indexes and to what git never writes.
    const forGit = await holder.enter('git');
    expect(forGit.code).toEqual({
      folders: [at('.git')],
      readOnly: ['.git', '.git/modules/libs/sub', '.git/modules/libs/sub/modules/inner'].flatMap((gitDir) => ['hooks', 'config.worktree', 'commondir'].map((name) => at(`${gitDir}/${name}`))),
    });
    expect(forGit.indexes).toHaveLength(3);
    await holder.leave(forGit);
    const unsandboxed = await holder.enter('nothing');
    expect(unsandboxed.code).toBeUndefined();
    await holder.leave(unsandboxed);
  });

  it("takes out a gitlink a command added to a nested submodule's index, named from the workspace", async () => {
    const workspace = workspaceWithNestedSubmodules();
    const holder = createRepositoryHolder({ workspace, git, env });
    const entered = await holder.enter('program');
    const inner = path.join(workspace, 'libs', 'sub', 'inner');
    run(inner, 'update-index', '--add', '--cacheinfo', `160000,${run(inner, 'rev-parse', 'HEAD').trim()},planted`);
    expect(await holder.leave(entered)).toEqual({ removed: ['libs/sub/inner/planted'], quarantined: [], failed: [] });
    expect(run(inner, 'ls-files', '--stage')).not.toContain('planted');
  });

  it('refuses a workspace of more repositories than it holds a command to, and a command the sandbox would hold where a submodule cannot be held in place', async () => {
    const workspace = workspaceWithNestedSubmodules();
    await expect(createRepositoryHolder({ workspace, git, env, maxRepositories: 2 }).enter('program')).rejects.toThrow(new UnheldRepositoryError('the workspace holds more than 2 repositories (its own and its submodules\'), more than toolgate holds a command to, so the command was not run'));
    writeFileSync(path.join(workspace, 'libs', 'sub', '.git'), 'gitdir: ../../.git/modules/gone\n');
    const holder = createRepositoryHolder({ workspace, git, env });
    await expect(holder.enter('program')).rejects.toThrow('the submodule entry "libs/sub" has a .git file naming a git folder that is not there, so toolgate cannot hold it in place');
    // toolgate's own git, which repairs it, passes it over: the user's git cannot enter it as it is.
    const unheld = await holder.enter('git');
    expect(unheld.indexes.map((index) => index.where)).toEqual(['']);
    await holder.leave(unheld);
  });

  it('holds nothing in a workspace without a repository', async () => {
    const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-hold-repositories-')));
    made.push(folder);
    expect(await createRepositoryHolder({ workspace: folder, git, env }).enter('program')).toEqual({ code: undefined, indexes: [] });
  });

  it("holds toolgate's own git to the work tree's hooks folder and included configuration, which a checkout would write", async () => {
    const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-hold-repositories-')));
    made.push(workspace);
    run(workspace, 'init', '-q');
    run(workspace, 'config', 'core.hooksPath', '.husky');
    run(workspace, 'config', 'include.path', '../shared.gitconfig');
    mkdirSync(path.join(workspace, '.husky'));
    writeFileSync(path.join(workspace, 'shared.gitconfig'), '[pull]\n\trebase = true\n');
    const holder = createRepositoryHolder({ workspace, git, env });
    const forGit = await holder.enter('git');
    expect(forGit.code?.readOnly).toEqual(expect.arrayContaining([path.join(workspace, '.husky'), path.join(workspace, 'shared.gitconfig')]));
    await holder.leave(forGit);
  });
});
