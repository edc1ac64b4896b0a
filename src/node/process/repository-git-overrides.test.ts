import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolPolicyError, ToolUnavailableError, type ToolgateError } from '../../core/internal.js';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost } from '../node-host-types.js';
import { gitHardeningEnv } from './build-child-env.js';
import { repositoryGitOverrides } from './repository-git-overrides.js';

/**
 * Every test here plants a program in git configuration the model can write
 * (with nothing but the git the host runs, or plain files in the workspace)
 * and shows that the host's git never runs it, while plain git, without the
 * host, does. Git only ever runs in temporary directories.
 */

let base: string;
let workspace: string;
let marker: string;
let payload: string;
const hosts: NodeHost[] = [];
const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };

function makeHost(): NodeHost {
  const host = createNodeHost({ workspace, spillDir: path.join(base, `spill-${hosts.length}`), sandbox: 'off', env: { set: identity } });
  hosts.push(host);
  return host;
}

/** Plain git, outside the host: the set-up, and the control that shows a payload is live. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, env: { ...process.env, ...identity }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function ran(): Promise<string> {
  return readFile(marker, 'utf8').catch(() => '');
}

/** A file git must hash again (stat-dirty), so a clean filter would run. */
async function touchLater(file: string): Promise<void> {
  const later = new Date(Date.now() + 5000);
  await utimes(file, later, later);
}

async function repository(name: string): Promise<string> {
  const repo = path.join(workspace, name);
  await mkdir(repo, { recursive: true });
  git(repo, 'init', '-q');
  return repo;
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-gitcfg-'));
  workspace = path.join(base, 'ws');
  await mkdir(workspace);
  marker = path.join(base, 'payload-ran');
  // Records each run and passes its input through, so a filter that runs it still works.
  payload = path.join(base, 'payload.sh');
  await writeFile(payload, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
  await chmod(payload, 0o755);
});

beforeEach(async () => {
  await rm(marker, { force: true });
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await rm(base, { recursive: true, force: true });
});

describe('process: programs named by the repository configuration', { timeout: 60_000 }, () => {
  it('never runs a repository alias: a shell alias, or one that smuggles -c, fails instead', async () => {
    const repo = await repository('alias');
    await writeFile(path.join(repo, '.gitattributes'), '*.txt filter=evil\n');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    const host = makeHost();
    // Written by the host-run git itself.
    expect((await host.process.spawn('git', ['config', 'alias.st2', `!${payload}`], {}, { cwd: 'alias' })).exitCode).toBe(0);
    expect((await host.process.spawn('git', ['config', 'alias.stg', `-c filter.evil.clean=${payload} add .`], {}, { cwd: 'alias' })).exitCode).toBe(0);
    const shell = await host.process.spawn('git', ['st2'], {}, { cwd: 'alias' });
    expect(shell.exitCode).not.toBe(0);
    const smuggled = await host.process.spawn('git', ['stg'], {}, { cwd: 'alias' });
    expect(smuggled.exitCode).not.toBe(0);
    expect(await ran()).toBe('');
    // The control: plain git runs both.
    git(repo, 'st2');
    git(repo, 'stg');
    expect((await ran()).split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('never runs a difftool command or tool path, nor a trailer command', async () => {
    const repo = await repository('difftool');
    await writeFile(path.join(repo, 'f'), 'a\n');
    git(repo, 'add', 'f');
    git(repo, 'commit', '-qm', 'f');
    await writeFile(path.join(repo, 'f'), 'b\n');
    const host = makeHost();
    const config = async (key: string, value: string): Promise<void> => {
      expect((await host.process.spawn('git', ['config', key, value], {}, { cwd: 'difftool' })).exitCode).toBe(0);
    };
    await config('diff.tool', 'evil');
    await config('difftool.evil.cmd', payload);
    await config('trailer.sign.command', payload);
    await host.process.spawn('git', ['difftool', '-y'], {}, { cwd: 'difftool' });
    // A built-in tool at a path the repository chooses.
    await config('difftool.vimdiff.path', payload);
    await host.process.spawn('git', ['difftool', '-y', '--tool=vimdiff'], {}, { cwd: 'difftool' });
    const trailers = await host.process.spawn('git', ['interpret-trailers'], {}, { cwd: 'difftool', stdin: 'subject\n' });
    expect(trailers.stdout).toContain('subject');
    expect(await ran()).toBe('');
    git(repo, 'difftool', '-y');
    execFileSync('git', ['interpret-trailers'], { cwd: repo, input: 'subject\n' });
    expect((await ran()).split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('never runs a tar.<format>.command, and the archive is still gzip', async () => {
    const repo = await repository('archive');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'x');
    git(repo, 'config', 'tar.tgz.command', payload);
    const host = makeHost();
    const archive = await host.process.spawn('git', ['archive', '--format=tgz', '-o', 'out.tgz', 'HEAD'], {}, { cwd: 'archive' });
    expect(archive.exitCode).toBe(0);
    expect((await readFile(path.join(repo, 'out.tgz'))).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(await ran()).toBe('');
    git(repo, 'archive', '--format=tgz', 'HEAD');
    expect(await ran()).not.toBe('');
  });

  it('never runs a submodule.<name>.update command', async () => {
    const lib = await repository('update-lib');
    git(lib, 'commit', '-q', '--allow-empty', '-m', 'one');
    const repo = await repository('update');
    git(repo, 'submodule', 'add', '-q', '../update-lib', 'lib');
    git(repo, 'commit', '-qm', 'lib');
    // The checkout moves on; `submodule update` must bring it back, with the repository's update command.
    git(path.join(repo, 'lib'), 'commit', '-q', '--allow-empty', '-m', 'two');
    git(repo, 'config', 'submodule.lib.update', `!${payload}`);
    const host = makeHost();
    await host.process.spawn('git', ['submodule', 'update'], {}, { cwd: 'update' });
    expect(await ran()).toBe('');
    git(repo, 'submodule', 'update');
    expect(await ran()).not.toBe('');
  });

  it('leaves credential helpers cleared, the URL-specific ones too', async () => {
    const repo = await repository('credential');
    git(repo, 'config', 'credential.https://example.invalid.helper', `!${payload}`);
    const host = makeHost();
    await host.process.spawn('git', ['credential', 'fill'], {}, { cwd: 'credential', stdin: 'protocol=https\nhost=example.invalid\n\n' });
    expect(await ran()).toBe('');
  });

  it('returns an inert override for every program-naming key the repository sets, and none for the user-level ones', async () => {
    const repo = await repository('table');
    const keys: [string, string, string][] = [
      ['alias.lg', 'log --oneline', ''],
      ['mergetool.evil.cmd', payload, 'false'],
      ['mergetool.meld.path', payload, 'false'],
      ['man.evil.cmd', payload, 'false'],
      ['browser.evil.path', payload, 'false'],
      ['guitool.evil.cmd', payload, 'false'],
      ['trailer.sign.cmd', payload, 'true'],
      ['tar.evil.command', payload, 'cat'],
      ['hook.evil.command', payload, 'true'],
      ['sendemail.tocmd', payload, 'true'],
      ['sendemail.work.smtpserver', payload, ''],
      ['instaweb.httpd', payload, 'false'],
      ['imap.tunnel', payload, ''],
      ['interactive.diffFilter', payload, 'cat'],
      ['submodule.lib.update', `!${payload}`, 'none'],
    ];
    for (const [key, value] of keys) git(repo, 'config', key, value);
    git(repo, 'config', 'submodule.other.update', 'rebase');
    const overrides = await repositoryGitOverrides({ file: 'git', args: ['status'], cwd: repo, env: { PATH: process.env.PATH ?? '', HOME: base, ...gitHardeningEnv(payload) }, externalDiff: payload });
    expect(new Map(overrides)).toEqual(new Map(keys.map(([key, , inert]) => [canonical(key), inert])));
  });

  it('refuses a driver whose name is not UTF-8: the override could not name it', async () => {
    const repo = await repository('bytes');
    const name = Buffer.from([0x65, 0x76, 0xff, 0x6c]);
    await writeFile(path.join(repo, '.git', 'config'), Buffer.concat([await readFile(path.join(repo, '.git', 'config')), Buffer.from('[filter "'), name, Buffer.from(`"]\n\tclean = ${payload}\n`)]));
    await writeFile(path.join(repo, '.gitattributes'), Buffer.concat([Buffer.from('*.txt filter='), name, Buffer.from('\n')]));
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    const host = makeHost();
    const refused = await host.process.spawn('git', ['add', '.'], {}, { cwd: 'bytes' }).catch((caught: unknown) => caught);
    expect((refused as ToolgateError).code).toBe('TOOL_UNAVAILABLE');
    expect(await ran()).toBe('');
    git(repo, 'add', '.');
    expect(await ran()).not.toBe('');
  });
});

describe('process: submodules run git with their own configuration', { timeout: 60_000 }, () => {
  it('git_status, git add and diff-files never run a filter a checked-out submodule configures, however .gitmodules asks', async () => {
    const repo = await repository('super');
    const sub = path.join(repo, 'sub');
    await mkdir(sub);
    git(sub, 'init', '-q');
    await writeFile(path.join(sub, 'data.txt'), 'hello\n');
    git(sub, 'add', 'data.txt');
    git(sub, 'commit', '-qm', 's');
    git(repo, 'add', 'sub');
    git(repo, 'commit', '-qm', 'super');
    // The model's part: a text file, and the submodule's own config written by the host-run git.
    await writeFile(path.join(sub, '.gitattributes'), '*.txt filter=evil\n');
    const host = makeHost();
    expect((await host.process.spawn('git', ['-C', 'sub', 'config', 'filter.evil.clean', payload], {}, { cwd: 'super' })).exitCode).toBe(0);
    await touchLater(path.join(sub, 'data.txt'));
    const status = await host.process.spawn('git', ['status', '--porcelain=v1', '--branch'], {}, { tool: 'git_status', cwd: 'super' });
    expect(status.exitCode).toBe(0);
    expect(await host.process.spawn('git', ['add', '-A'], {}, { cwd: 'super' })).toMatchObject({ exitCode: 0 });
    await host.process.spawn('git', ['diff-files'], {}, { cwd: 'super' });
    // .gitmodules (a workspace file) may ask status to look inside the submodule after all.
    await writeFile(path.join(repo, '.gitmodules'), '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n');
    await touchLater(path.join(sub, 'data.txt'));
    await host.process.spawn('git', ['status', '--porcelain'], {}, { cwd: 'super' });
    expect(await ran()).toBe('');
    await touchLater(path.join(sub, 'data.txt'));
    git(repo, 'status', '--porcelain');
    expect(await ran()).not.toBe('');
  });

  it('reaches nested submodules too', async () => {
    const repo = await repository('nest');
    const deep = path.join(repo, 'sub', 'deep');
    await mkdir(deep, { recursive: true });
    git(deep, 'init', '-q');
    await writeFile(path.join(deep, '.gitattributes'), '*.txt filter=evil\n');
    await writeFile(path.join(deep, 'd.txt'), 'deep\n');
    git(deep, 'add', '.');
    git(deep, 'commit', '-qm', 'deep');
    const sub = path.join(repo, 'sub');
    git(sub, 'init', '-q');
    git(sub, 'add', 'deep');
    await writeFile(path.join(sub, '.gitmodules'), '[submodule "deep"]\n\tpath = deep\n\turl = ./deep\n\tignore = none\n');
    git(sub, 'add', '.gitmodules');
    git(sub, 'commit', '-qm', 'sub');
    git(repo, 'add', 'sub');
    git(repo, 'commit', '-qm', 'top');
    git(deep, 'config', 'filter.evil.clean', payload);
    const host = makeHost();
    await touchLater(path.join(deep, 'd.txt'));
    expect((await host.process.spawn('git', ['add', '-A'], {}, { cwd: 'nest' })).exitCode).toBe(0);
    expect(await ran()).toBe('');
    await touchLater(path.join(deep, 'd.txt'));
    git(repo, 'add', '-A');
    expect(await ran()).not.toBe('');
  });

  it('git submodule update never runs a smudge filter from a submodule git directory under .git/modules', async () => {
    const lib = await repository('modules-lib');
    await writeFile(path.join(lib, '.gitattributes'), '*.txt filter=evil\n');
    await writeFile(path.join(lib, 'l.txt'), 'lib\n');
    git(lib, 'add', '.');
    git(lib, 'commit', '-qm', 'lib');
    const repo = await repository('modules');
    git(repo, 'submodule', 'add', '-q', '../modules-lib', 'lib');
    git(repo, 'commit', '-qm', 'lib');
    git(repo, 'submodule', 'deinit', '-q', '-f', 'lib');
    // Only the absorbed git directory is left, and the model configures it.
    git(repo, '--git-dir', '.git/modules/lib', 'config', 'filter.evil.smudge', payload);
    const host = makeHost();
    const update = await host.process.spawn('git', ['submodule', 'update', '--init'], {}, { cwd: 'modules' });
    expect(update.exitCode).toBe(0);
    expect(await readFile(path.join(repo, 'lib', 'l.txt'), 'utf8')).toBe('lib\n');
    expect(await ran()).toBe('');
    git(repo, 'submodule', 'deinit', '-q', '-f', 'lib');
    git(repo, 'submodule', 'update', '--init');
    expect(await ran()).not.toBe('');
  });
});

describe('process: configuration a command writes into the repository it creates', { timeout: 60_000 }, () => {
  /** A repository to clone whose `.txt` files name the `evil` filter; each test makes its own, whatever ran before it. */
  async function source(name: string): Promise<string> {
    const repo = await repository(name);
    await writeFile(path.join(repo, '.gitattributes'), '*.txt filter=evil\n');
    await writeFile(path.join(repo, 'a.txt'), 'hello\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'x');
    return repo;
  }

  it('git clone -c (every spelling) never runs the filter it configures; the checkout is the file itself', async () => {
    await source('clone-src');
    const host = makeHost();
    const spellings = [['-c', `filter.evil.smudge=${payload}`], [`-cfilter.evil.smudge=${payload}`], ['-qc', `Filter.evil.Smudge=${payload}`], ['--config', `filter.evil.smudge=${payload}`], [`--conf=filter.evil.smudge=${payload}`]];
    for (const [index, spelling] of spellings.entries()) {
      const clone = await host.process.spawn('git', ['clone', '-q', ...spelling, 'clone-src', `clone-dst-${index}`], {}, {});
      expect(clone.exitCode).toBe(0);
      expect(await readFile(path.join(workspace, `clone-dst-${index}`, 'a.txt'), 'utf8')).toBe('hello\n');
    }
    expect(await ran()).toBe('');
    git(workspace, 'clone', '-q', '-c', `filter.evil.smudge=${payload}`, 'clone-src', 'clone-control');
    expect(await ran()).not.toBe('');
  });

  it('never pushes to, or archives from, a repository given by path, whose hooks and tar commands would run unhardened', async () => {
    const repo = await repository('push-src');
    await writeFile(path.join(repo, 'a.txt'), 'hello\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'x');
    const bare = path.join(workspace, 'bare.git');
    git(workspace, 'init', '-q', '--bare', bare);
    await writeFile(path.join(bare, 'hooks', 'pre-receive'), `#!/bin/sh\n${payload} < /dev/null\n`);
    await chmod(path.join(bare, 'hooks', 'pre-receive'), 0o755);
    git(bare, 'config', 'tar.evil.command', payload);
    git(bare, 'config', 'uploadarchive.allowUnreachable', 'true');
    const host = makeHost();
    for (const args of [['push', bare, 'HEAD:refs/heads/x'], ['push', `file://${bare}`, 'HEAD:refs/heads/y'], ['archive', `--remote=${bare}`, '--format=evil', 'HEAD']]) {
      const attempt = await host.process.spawn('git', args, {}, { cwd: path.relative(workspace, repo) });
      expect(attempt.exitCode, args.join(' ')).not.toBe(0);
    }
    expect(await ran()).toBe('');
    git(repo, 'push', bare, 'HEAD:refs/heads/control');
    expect(await ran()).not.toBe('');
  });

  it('refuses a repository whose configuration includes a file under a condition: the git worktree add starts would read it and run its driver', async () => {
    const repo = await repository('include-if');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'one');
    git(repo, 'checkout', '-qb', 'evil');
    await writeFile(path.join(repo, '.gitattributes'), '*.txt filter=evil\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'evil');
    git(repo, 'checkout', '-q', '-');
    await writeFile(path.join(repo, 'evil.cfg'), `[filter "evil"]\n\tsmudge = ${payload}\n\tclean = ${payload}\n`);
    const host = makeHost();
    // Written by the host-run git itself; the condition does not hold where the command starts.
    expect((await host.process.spawn('git', ['config', 'includeIf.onbranch:evil.path', '../evil.cfg'], {}, { cwd: 'include-if' })).exitCode).toBe(0);
    // `worktree add` checks the branch out in a git of its own, which reads the configuration again.
    const refused = await host.process.spawn('git', ['worktree', 'add', 'wt', 'evil'], {}, { cwd: 'include-if' }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ToolUnavailableError);
    expect(await ran()).toBe('');
    git(repo, 'worktree', 'add', 'control', 'evil');
    expect(await ran()).not.toBe('');
  });

  it("never runs a clean filter a linked worktree's own config.worktree names, on git worktree remove from the main one", async () => {
    const repo = await repository('linked');
    await writeFile(path.join(repo, '.gitattributes'), '*.txt filter=evil\n');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'one');
    const host = makeHost();
    const spawn = (cwd: string, ...args: string[]) => host.process.spawn('git', args, {}, { cwd });
    // Written by the host-run git itself, in the linked worktree, where the main worktree's probe does not look.
    expect((await spawn('linked', 'worktree', 'add', 'wt', '-b', 'side')).exitCode).toBe(0);
    expect((await spawn('linked', 'config', 'extensions.worktreeConfig', 'true')).exitCode).toBe(0);
    expect((await spawn('linked/wt', 'config', '--worktree', 'filter.evil.clean', payload)).exitCode).toBe(0);
    await touchLater(path.join(repo, 'wt', 'a.txt'));
    // `worktree remove` runs `git status` in the linked worktree to see whether it is clean.
    await spawn('linked', 'worktree', 'remove', 'wt');
    expect(await ran()).toBe('');
    expect((await spawn('linked', 'worktree', 'add', 'wt2', '-b', 'side2')).exitCode).toBe(0);
    git(path.join(repo, 'wt2'), 'config', '--worktree', 'filter.evil.clean', payload);
    await touchLater(path.join(repo, 'wt2', 'a.txt'));
    git(repo, 'worktree', 'remove', 'wt2');
    expect(await ran()).not.toBe('');
  });

  it('refuses a template, and an include given to git clone -c, before anything runs', async () => {
    await source('template-src');
    const template = path.join(workspace, 'template');
    await mkdir(template);
    await writeFile(path.join(template, 'config'), `[filter "evil"]\n\tsmudge = ${payload}\n`);
    await writeFile(path.join(workspace, 'evil.cfg'), `[filter "evil"]\n\tsmudge = ${payload}\n`);
    const host = makeHost();
    for (const args of [
      ['clone', '-q', '--template', template, 'template-src', 'tpl-1'],
      ['clone', '-q', `--templ=${template}`, 'template-src', 'tpl-2'],
      ['init', '-q', `--template=${template}`, 'tpl-3'],
      ['clone', '-q', '-c', `include.path=${path.join(workspace, 'evil.cfg')}`, 'template-src', 'tpl-4'],
      ['clone', '-q', '-c', `includeIf.gitdir:**.path=${path.join(workspace, 'evil.cfg')}`, 'template-src', 'tpl-5'],
    ]) {
      const refused = await host.process.spawn('git', args, {}, { tool: 'run_command' }).catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(ToolPolicyError);
      expect((refused as ToolPolicyError).message).not.toContain(template);
    }
    expect(await ran()).toBe('');
    git(workspace, 'clone', '-q', '--template', template, 'template-src', 'tpl-control');
    expect(await ran()).not.toBe('');
  });
});

function canonical(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  return key.slice(0, first).toLowerCase() + key.slice(first, last) + key.slice(last).toLowerCase();
}
