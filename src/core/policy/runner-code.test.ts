import { describe, expect, it } from 'vitest';
import { resolvableArguments, runnerFolders } from './argument-paths.js';
import { climbFolders, MAX_RUNNER_FILES, realDepth, runnerCode, unboundRunners } from './runner-code.js';

describe('runnerCode', () => {
  it.each([
    [['npm', 'test'], { programs: ['npm'], files: ['package.json'] }],
    [['/usr/bin/pnpm', 'run', 'build'], { programs: ['pnpm'], files: ['package.json'] }],
    [['yarn', '--cwd', 'web', 'test'], { programs: ['yarn'], files: ['web/package.json', 'web/../package.json'] }],
    [['npm', '--prefix=app', 'test'], { programs: ['npm'], files: ['app/package.json'] }],
    [['make'], { programs: ['make'], files: ['GNUmakefile', 'makefile', 'Makefile'] }],
    [['make', '-Capp', 'test'], { programs: ['make'], files: ['app/GNUmakefile', 'app/makefile', 'app/Makefile'] }],
    [['make', '--directory', '/srv/app'], { programs: ['make'], files: ['/srv/app/GNUmakefile', '/srv/app/makefile', '/srv/app/Makefile'] }],
    [['timeout', '60', 'npm', 'test'], { programs: ['npm'], files: ['package.json'] }],
    [['make', '-C', 'a', '-C', 'b', 'test'], { programs: ['make'], files: ['a/b/GNUmakefile', 'a/b/makefile', 'a/b/Makefile'] }],
    [['make', '-C', 'app', '-fx.mk', '--file=/srv/y.mk'], { programs: ['make'], files: ['app/x.mk', '/srv/y.mk'] }],
    [['npm', 'test', '-w', 'packages/a'], { programs: ['npm'], files: ['package.json', 'packages/a/package.json'], members: true, roots: ['package.json'] }],
    [['npm', 'test', '-ws'], { programs: ['npm'], files: ['package.json'], members: true, roots: ['package.json'] }],
  ])('%j reads its code from %j', (argv, code) => {
    expect(runnerCode(argv)).toEqual(code);
  });

  it.each([
    [['npm', '--prefi', 'sub', 'test'], ['package.json', 'sub/package.json']],
    [['npm', '-prefix', 'sub', 'test'], ['sub/package.json']],
    [['npm', '---prefix=sub', 'test'], ['sub/package.json']],
    [['npm', '--C', 'sub', 'test'], ['sub/package.json']],
    [['npm', '-sC', 'sub', 'test'], ['package.json', 'sub/package.json']],
    [['npm', '-Csub', 'test'], ['package.json', 'sub/package.json', 'test/package.json']],
    [['npm', '--w', 'a', 'test'], ['package.json', 'a/package.json']],
    [['npm', '--dir=sub', 'test'], ['package.json']],
    [['npm', 'test', '---', '--prefix', 'sub'], ['package.json']],
    // `-dir` may be the cluster `-d -i -r`, and `-r` selects every member: the pnpm-workspace.yaml naming them is bound too.
    [['pnpm', '-dir', 'sub', 'test'], ['sub/package.json', 'sub/pnpm-workspace.yaml', 'sub/../package.json', 'sub/../pnpm-workspace.yaml']],
  ])('npm and pnpm read %j as their parser may: the files of each reading, %j', (argv, files) => {
    expect(runnerCode(argv)?.files).toEqual(files);
  });

  it.each([[['pnpm', '--filter', 'a', 'test']], [['pnpm', '-r', 'test']], [['yarn', 'workspace', 'a', 'test']], [['bun', '--filter=a', 'test']], [['npm', '--workspaces=true', 'test']]])(
    '%j selects members no option names by folder',
    (argv) => {
      expect(runnerCode(argv)?.members).toBe(true);
    },
  );

  it('binds the members a host found, and the listings their globs read, each spelled from the folder of the file naming them', () => {
    const found = [
      { members: [], listed: [] },
      { members: ['packages/a', 'tools/c'], listed: ['packages'] },
    ];
    expect(runnerCode(['npm', 'test', '-ws'], 'x', [1], found)).toEqual({
      programs: ['npm'],
      files: ['package.json', '../package.json', '../packages/a/package.json', '../tools/c/package.json'],
      roots: ['package.json', '../package.json'],
      listings: ['../packages'],
    });
    // An answer for some of the files naming members only binds none of them.
    expect(runnerCode(['npm', 'test', '-ws'], 'x', [1], found.slice(1))).toMatchObject({ files: ['package.json', '../package.json'], members: true });
    expect(runnerCode(['pnpm', '-r', 'test'], '.', [0], [{ members: [], listed: [], cut: true }])).toMatchObject({ files: ['package.json', 'pnpm-workspace.yaml'], members: true });
  });

  it('lists at most MAX_RUNNER_FILES files, and a climb past them is cut and resolves none', () => {
    const deep = Array<string>(2048).fill('a').join('/');
    const code = runnerCode(['pnpm', '-C', Array<string>(4096).fill('b').join('/'), 'test'], deep);
    expect(code?.files).toHaveLength(MAX_RUNNER_FILES);
    expect(code?.cut).toBe(true);
    expect(resolvableArguments(['npm', 'test'], deep)).toBeUndefined();
    expect(runnerCode(['npm', 'test'], Array<string>(10).fill('a').join('/'))?.cut).toBeUndefined();
  });

  it('a command that is no runner, or starts one through a shell string, has none', () => {
    expect(runnerCode(['cat', 'package.json'])).toBeUndefined();
    expect(runnerCode(['sh', '-c', 'npm test'])).toBeUndefined();
  });

  it('a runner started inside a shell string or by a program toolgate does not read is unbound; one it reads is not', () => {
    expect(unboundRunners(['sh', '-c', 'cd sub && npm test'])).toEqual({ programs: ['npm'], unread: false });
    expect(unboundRunners(['bash', '-c', 'make -C a test; yarn build'])).toEqual({ programs: ['make', 'yarn'], unread: false });
    expect(unboundRunners(['setarch', 'x86_64', '/usr/bin/npm', 'test'])).toEqual({ programs: ['npm'], unread: false });
    expect(unboundRunners(['npm', 'test'])).toEqual({ programs: [], unread: false });
    expect(unboundRunners(['timeout', '60', 'npm', '--prefix', 'app', 'test'])).toEqual({ programs: [], unread: false });
    expect(unboundRunners(['make', '-C', 'app', 'test'])).toEqual({ programs: [], unread: false });
    expect(unboundRunners(['cat', 'package.json'])).toEqual({ programs: [], unread: false });
  });

  it('a command whose readings were cut may start a runner no reading names: it says so', () => {
    const deep = ['sh', '-c', `sh -c "sh -c 'sh -c \\"sh -c npm\\\\ test\\"'"`];
    expect(unboundRunners(deep)).toEqual({ programs: [], unread: true });
    const long = ['setarch', 'x86_64', ...Array.from({ length: 250 }, (_, index) => `${index}`.padStart(100, 'a')), 'npm', 'test'];
    expect(unboundRunners(long).unread).toBe(true);
  });

  it('a folder option after `--` is the script\'s, and a NUL in one names no folder', () => {
    expect(runnerCode(['npm', 'test', '--', '--prefix', 'x'])).toEqual({ programs: ['npm'], files: ['package.json'] });
    expect(runnerCode(['make', '-C', 'a\0b'])).toEqual({ programs: ['make'], files: ['GNUmakefile', 'makefile', 'Makefile'] });
  });

  it('npm and its kin climb from a folder with no file of theirs: each folder above up to the workspace root is read, as the kernel climbs', () => {
    expect(runnerCode(['npm', 'test'], 'a/b')).toEqual({ programs: ['npm'], files: ['package.json', '../package.json', '../../package.json'] });
    expect(runnerCode(['npm', '--prefix', 'app', 'test'], 'a')).toEqual({ programs: ['npm'], files: ['app/package.json'] });
    expect(runnerCode(['pnpm', '-C', 'app', 'test'], 'a')).toEqual({ programs: ['pnpm'], files: ['app/package.json', 'app/../package.json', 'app/../../package.json'] });
    expect(runnerCode(['make', 'test'], 'a')).toEqual({ programs: ['make'], files: ['GNUmakefile', 'makefile', 'Makefile'] });
    expect(runnerCode(['npm', 'test'], '/srv/app')).toEqual({ programs: ['npm'], files: ['package.json'] });
  });

  it('the host is asked for them after the arguments, against the working directory', () => {
    expect(resolvableArguments(['npm', 'test'], 'src')).toEqual(['src/test', 'src/package.json', 'src/../package.json']);
    expect(resolvableArguments(['make', '-C', '/srv/app'], '.')).toEqual(['/srv/app', '/srv/app/GNUmakefile', '/srv/app/makefile', '/srv/app/Makefile']);
  });

  it('the folders a runner climbs from, for a host to resolve first: npm moved by --prefix climbs none, make none', () => {
    expect(climbFolders(['npm', 'test'])).toEqual(['.']);
    expect(climbFolders(['timeout', '9', 'pnpm', '-C', 'link', 'test'])).toEqual(['link']);
    expect(climbFolders(['yarn', '--cwd=/srv/link', 'test'])).toEqual(['/srv/link']);
    expect(climbFolders(['npm', '--prefix', 'link', 'test'])).toEqual([]);
    expect(climbFolders(['make', '-C', 'link', 'test'])).toEqual([]);
    expect(runnerFolders(['npm', 'test'], 'sub')).toEqual(['sub']);
    expect(runnerFolders(['bun', '--cwd', 'link', 'test'], 'sub')).toEqual(['sub/link']);
    expect(runnerFolders(['bun', '--cwd', '/srv/link', 'test'], 'sub')).toEqual(['/srv/link']);
  });

  it('a host\'s depth sets the climb: as many `..` as the real folder is deep, from the workspace root or, outside it, from /', () => {
    expect(realDepth('.')).toBe(0);
    expect(realDepth('x/y')).toBe(2);
    expect(realDepth('/tmp/elsewhere/p/q')).toBe(4);
    expect(runnerCode(['npm', 'test'], 'sub', [2])).toEqual({ programs: ['npm'], files: ['package.json', '../package.json', '../../package.json'] });
    expect(runnerCode(['pnpm', '-C', 'link', 'test'], '.', [3])?.files).toEqual(['link/package.json', 'link/../package.json', 'link/../../package.json', 'link/../../../package.json']);
    // A working folder deeper than it is spelled, and one shallower (`a/b` with `a` a link to the root): the real depth decides.
    expect(runnerCode(['npm', 'test'], 'a/b', [1])?.files).toEqual(['package.json', '../package.json']);
    expect(runnerCode(['npm', 'test'], '/srv/app', [2])?.files).toEqual(['package.json', '../package.json', '../../package.json']);
    // Folders and files, folders first, with the files the real depth lists.
    expect(resolvableArguments(['npm', 'test'], 'sub', [2])).toEqual(['sub/test', 'sub', 'sub/package.json', 'sub/../package.json', 'sub/../../package.json']);
  });

  it('a climb from a folder really thousands deep is cut at MAX_RUNNER_FILES as a spelled one is', () => {
    const code = runnerCode(['npm', 'test'], 'sub', [1_000_000]);
    expect(code?.files).toHaveLength(MAX_RUNNER_FILES);
    expect(code?.cut).toBe(true);
    expect(resolvableArguments(['npm', 'test'], 'sub', [1_000_000])).toBeUndefined();
  });

  // Every spelling npm may take as `-C` names a folder npm may run in: each was once read against every option of the
  // command (12,000 of them held the thread for seconds). The timeout is the guard.
  it('reads thousands of spellings that may each move npm in time linear in the command, and lists no more than its bound', { timeout: 1_000 }, () => {
    const folders = Array.from({ length: 12_000 }, (_, index) => `-Cf${index.toString(36)}`);
    const argv = ['npm', ...folders, 'test'];
    const code = runnerCode(argv, '.', climbFolders(argv).map(() => 0));
    expect(code?.files).toHaveLength(MAX_RUNNER_FILES);
    expect(code?.cut).toBe(true);
    expect(climbFolders(argv).length).toBeLessThanOrEqual(MAX_RUNNER_FILES);
  });
});
