import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findProgram } from './find-program.js';
import { createGitlinkGuard, type GitlinkBaseline, type GitlinkGuard } from './guard-gitlinks.js';

const realGit = findProgram('git', ['/usr/bin', '/bin']) as string;
const python = findProgram('python3', ['/usr/bin', '/bin']);
const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

interface Repository {
  readonly workspace: string;
  readonly guard: GitlinkGuard;
  readonly git: (...args: string[]) => string;
  /** The subcommand of each git the guard ran. */
  readonly runs: () => string[];
  /** The gitlinks of the index, as git lists them. */
  readonly gitlinks: () => string[];
}

/** A repository with one commit, a git that logs each of its runs (and fails `ls-files` once `fail` exists), and the guard over them. */
function repository(): Repository {
  const folder = mkdtempSync(path.join(tmpdir(), 'toolgate-gitlinks-'));
  made.push(folder);
  const workspace = path.join(folder, 'workspace');
  const git = (...args: string[]): string => execFileSync(realGit, args, { cwd: workspace, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: folder } });
  execFileSync(realGit, ['init', '-q', workspace]);
  git('-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-q', '--allow-empty', '-m', 'first');
  const log = path.join(folder, 'runs');
  writeFileSync(log, '');
  const logging = path.join(folder, 'git');
  // Once `tamper` exists, what a command still running could do: write another entry into the copy the guard edits.
  const tamper = `if [ "$1" = update-index ] && [ -e '${folder}/tamper' ]; then '${realGit}' "$@" && '${realGit}' update-index --add --cacheinfo "160000,$('${realGit}' rev-parse HEAD),sub2"; exit $?; fi`;
  writeFileSync(logging, `#!/bin/sh\necho "$1" >> '${log}'\nif [ "$1" = ls-files ] && [ -e '${folder}/fail' ]; then exit 1; fi\n${tamper}\nexec '${realGit}' "$@"\n`);
  chmodSync(logging, 0o755);
  const guard = createGitlinkGuard({ gitDir: path.join(workspace, '.git'), workTree: workspace, git: logging, env: { PATH: '/usr/bin:/bin', HOME: folder } });
  const gitlinks = (): string[] =>
    git('ls-files', '--stage', '-z')
      .split('\0')
      .filter((entry) => entry.startsWith('160000 '))
      .map((entry) => entry.slice(entry.indexOf('\t') + 1));
  return { workspace, guard, git, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean), gitlinks };
}

const head = (git: Repository['git']): string => git('rev-parse', 'HEAD').trim();
const list = (git: Repository['git'], entry: string, ...config: string[]): string => git(...config, 'update-index', '--add', '--cacheinfo', `160000,${head(git)},${entry}`);

async function before(guard: GitlinkGuard): Promise<GitlinkBaseline> {
  const baseline = await guard.before();
  if (baseline === undefined) throw new Error('expected a baseline');
  return baseline;
}

describe('createGitlinkGuard', () => {
  it('takes out of the index the submodule entries a command added, and names them', async () => {
    const { guard, git, gitlinks } = repository();
    const baseline = await before(guard);
    expect(baseline.paths.size).toBe(0);
    list(git, 'sub');
    list(git, 'deep/a b ü\uFFFD');
    list(git, '-sub');
    expect(await guard.after(baseline)).toEqual({ kind: 'checked', removed: ['-sub', 'deep/a b ü\uFFFD', 'sub'] });
    expect(gitlinks()).toEqual([]);
  });

  it('takes them out past an index.lock the command left behind', async () => {
    const { workspace, guard, git, gitlinks } = repository();
    const baseline = await before(guard);
    list(git, 'sub');
    writeFileSync(path.join(workspace, '.git', 'index.lock'), '');
    expect(await guard.after(baseline)).toEqual({ kind: 'checked', removed: ['sub'] });
    expect(gitlinks()).toEqual([]);
    expect(readdirSync(path.join(workspace, '.git')).filter((name) => name.startsWith('index'))).toEqual(['index', 'index.lock']);
  });

  it('moves the index aside when git will not take an entry out (a name it refuses to handle), or cannot list it', async () => {
    const { workspace, guard, git } = repository();
    let baseline = await before(guard);
    list(git, 'git~1', '-c', 'core.protectNTFS=false');
    const refused = await guard.after(baseline);
    expect(refused.kind).toBe('quarantined');
    expect(existsSync(path.join(workspace, '.git', 'index'))).toBe(false);
    expect(refused.kind === 'quarantined' && readdirSync(path.join(workspace, '.git'))).toContain(refused.kind === 'quarantined' ? refused.name : '');
    git('read-tree', 'HEAD');
    baseline = await before(guard);
    list(git, 'sub');
    writeFileSync(path.join(workspace, '..', 'fail'), '');
    expect((await guard.after(baseline)).kind).toBe('quarantined');
    expect(existsSync(path.join(workspace, '.git', 'index'))).toBe(false);
  });

  it('moves the index aside when the copy it edited came to hold another entry (a command still running wrote it)', async () => {
    const { workspace, guard, git, gitlinks } = repository();
    const baseline = await before(guard);
    list(git, 'sub');
    writeFileSync(path.join(workspace, '..', 'tamper'), '');
    expect((await guard.after(baseline)).kind).toBe('quarantined');
    expect(existsSync(path.join(workspace, '.git', 'index'))).toBe(false);
    git('read-tree', 'HEAD');
    expect(gitlinks()).toEqual([]);
  });

  it('reads a FIFO put at .git/index without waiting on it: unknown before a command, moved aside after one', async () => {
    const { workspace, guard } = repository();
    const baseline = await before(guard);
    const index = path.join(workspace, '.git', 'index');
    rmSync(index);
    execFileSync('mkfifo', [index]);
    expect((await guard.after(baseline)).kind).toBe('quarantined');
    execFileSync('mkfifo', [index]);
    expect(await guard.before()).toBeUndefined();
  });

  it('leaves the entries that were there before, a new commit of one included, and files the command added', async () => {
    const { workspace, guard, git, gitlinks } = repository();
    list(git, 'lib');
    const baseline = await before(guard);
    expect([...baseline.paths]).toEqual(['lib']);
    git('-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-q', '--allow-empty', '-m', 'second');
    list(git, 'lib');
    writeFileSync(path.join(workspace, 'notes.md'), 'notes\n');
    git('add', 'notes.md');
    expect(await guard.after(baseline)).toEqual({ kind: 'checked', removed: [] });
    expect(gitlinks()).toEqual(['lib']);
    expect(git('ls-files')).toContain('notes.md');
  });

  it('holds a command that starts while another runs to the entries from before both', async () => {
    const { guard, git, gitlinks } = repository();
    const first = await before(guard);
    list(git, 'sub');
    const second = await before(guard);
    expect(second.paths.size).toBe(0);
    expect(await guard.after(first)).toEqual({ kind: 'checked', removed: ['sub'] });
    list(git, 'sub');
    expect(await guard.after(second)).toEqual({ kind: 'checked', removed: ['sub'] });
    expect(gitlinks()).toEqual([]);
  });

  it('gives commands entering together one baseline from one listing: none runs while a listing that becomes its baseline is under way', async () => {
    const { guard, git, runs } = repository();
    const [first, second] = await Promise.all([guard.before(), guard.before()]);
    expect(second).toBe(first);
    expect(runs()).toEqual(['ls-files']);
    list(git, 'sub');
    // A third entering while both run is held to the same entries, not to what the index holds now.
    expect(await guard.before()).toBe(first);
    for (const held of [first, second, first]) await guard.after(held as GitlinkBaseline);
    expect(git('ls-files', '--stage')).not.toContain('160000');
  });

  it('sees a change through a link at .git/index, and in the shared index of a split index', async () => {
    const linked = repository();
    renameSync(path.join(linked.workspace, '.git', 'index'), path.join(linked.workspace, '.git', 'real'));
    symlinkSync('real', path.join(linked.workspace, '.git', 'index'));
    let baseline = await before(linked.guard);
    expect(await linked.guard.after(baseline)).toEqual({ kind: 'checked', removed: [] });
    baseline = await before(linked.guard);
    execFileSync(realGit, ['update-index', '--add', '--cacheinfo', `160000,${head(linked.git)},sub`], { cwd: linked.workspace, env: { PATH: '/usr/bin:/bin', GIT_INDEX_FILE: path.join(linked.workspace, '.git', 'real') } });
    expect(await linked.guard.after(baseline)).toEqual({ kind: 'checked', removed: ['sub'] });
    expect(linked.gitlinks()).toEqual([]);

    const split = repository();
    split.git('update-index', '--split-index');
    baseline = await before(split.guard);
    const shared = readdirSync(path.join(split.workspace, '.git')).find((name) => name.startsWith('sharedindex.')) as string;
    // Another index, holding the entry, stood in for the shared one under its name: `.git/index` itself is untouched.
    const other = path.join(split.workspace, '..', 'other-index');
    execFileSync(realGit, ['read-tree', 'HEAD'], { cwd: split.workspace, env: { PATH: '/usr/bin:/bin', GIT_INDEX_FILE: other } });
    execFileSync(realGit, ['update-index', '--add', '--cacheinfo', `160000,${head(split.git)},sub`], { cwd: split.workspace, env: { PATH: '/usr/bin:/bin', GIT_INDEX_FILE: other } });
    const bytes = readFileSync(other);
    Buffer.from(shared.slice('sharedindex.'.length), 'hex').copy(bytes, bytes.length - 20);
    writeFileSync(path.join(split.workspace, '.git', shared), bytes);
    expect(split.gitlinks()).toEqual(['sub']);
    expect(await split.guard.after(baseline)).toEqual({ kind: 'checked', removed: ['sub'] });
    expect(split.gitlinks()).toEqual([]);
  });

  // A write through a shared mapping whose page is already dirty changes neither the file's times nor its size.
  it.skipIf(python === undefined)('sees a change written through a memory mapping, which leaves the index file\'s times as they were', async () => {
    const { workspace, guard, git, gitlinks } = repository();
    const blob = git('hash-object', '-w', '--stdin').trim();
    git('update-index', '--add', '--cacheinfo', `100644,${blob},sub`);
    const other = path.join(workspace, '..', 'other-index');
    execFileSync(realGit, ['read-tree', 'HEAD'], { cwd: workspace, env: { PATH: '/usr/bin:/bin', GIT_INDEX_FILE: other } });
    execFileSync(realGit, ['update-index', '--add', '--cacheinfo', `160000,${head(git)},sub`], { cwd: workspace, env: { PATH: '/usr/bin:/bin', GIT_INDEX_FILE: other } });
    const first = await before(guard);
    const second = await before(guard);
    // The first command dirties the mapped page, waits while the second ends (the guard lists the index), then writes.
    const script = `import mmap, os, time\nfd = os.open('.git/index', os.O_RDWR)\nm = mmap.mmap(fd, 0)\nm[0:1] = m[0:1]\nopen('../armed', 'w').close()\nwhile not os.path.exists('../go'): time.sleep(0.02)\nother = open('../other-index', 'rb').read()\nassert len(other) == len(m)\nm[0:len(other)] = other\n`;
    const writer = spawn(python as string, ['-c', script], { cwd: workspace, stdio: 'ignore' });
    const exited = new Promise((resolve) => writer.on('exit', resolve));
    while (!existsSync(path.join(workspace, '..', 'armed'))) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await guard.after(second)).toEqual({ kind: 'checked', removed: [] });
    const times = statSync(path.join(workspace, '.git', 'index'));
    writeFileSync(path.join(workspace, '..', 'go'), '');
    expect(await exited).toBe(0);
    expect(statSync(path.join(workspace, '.git', 'index')).mtimeMs).toBe(times.mtimeMs);
    expect(gitlinks()).toEqual(['sub']);
    expect(await guard.after(first)).toEqual({ kind: 'checked', removed: ['sub'] });
    expect(gitlinks()).toEqual([]);
  });

  it('gives the owner back the write permission a command took off .git, to take its entries out', async () => {
    const { workspace, guard, git, gitlinks } = repository();
    const baseline = await before(guard);
    list(git, 'sub');
    chmodSync(path.join(workspace, '.git'), 0o555);
    expect(await guard.after(baseline)).toEqual({ kind: 'checked', removed: ['sub'] });
    expect(gitlinks()).toEqual([]);
    expect(statSync(path.join(workspace, '.git')).mode & 0o777).toBe(0o755);
  });

  it('lists the index only when it changed: a command that never touched it costs no git', async () => {
    const { guard, git, runs } = repository();
    const first = await before(guard);
    expect(runs()).toEqual(['ls-files']);
    await guard.after(first);
    await guard.after(await before(guard));
    expect(runs()).toEqual(['ls-files']);
    const third = await before(guard);
    list(git, 'sub');
    expect(await guard.after(third)).toEqual({ kind: 'checked', removed: ['sub'] });
    expect(runs()).toEqual(['ls-files', 'ls-files', 'update-index', 'ls-files']);
  });

  it('reads no index as one without entries, and an index git cannot list as unknown', async () => {
    const { workspace, guard } = repository();
    rmSync(path.join(workspace, '.git', 'index'), { force: true });
    expect((await guard.before())?.paths.size).toBe(0);
    await guard.after({ paths: new Set() });
    writeFileSync(path.join(workspace, '.git', 'index'), 'not an index');
    expect(await guard.before()).toBeUndefined();
  });
});
