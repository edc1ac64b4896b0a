import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolgateError, ToolPolicyError } from '../../core/internal.js';
import { exists, useProcessWorkspace } from './__fixtures__/process-workspace.js';

const setup = useProcessWorkspace();
const makeHost = setup.makeHost;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie waiting for its reaper has exited: it is not an orphan still running.
  return !/^State:\s+Z/m.test(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }));
}

describe('process: spawning', () => {
  it('never passes the parent environment; only allowed declared variables get through', async () => {
    process.env.TOOLGATE_PARENT_SECRET = 'sk-parent-secret-value';
    try {
      const host = makeHost({ env: { allow: ['GREETING'], set: { FIXED: 'yes' } } });
      const result = await host.process.spawn('env', [], { GREETING: 'hello' }, {});
      expect(result.stdout).not.toContain('sk-parent-secret-value');
      expect(result.stdout).toContain('GREETING=hello');
      expect(result.stdout).toContain('FIXED=yes');
      expect(result.stdout).toContain('GIT_TERMINAL_PROMPT=0');
      const names = result.stdout.trim().split('\n').map((line) => line.split('=')[0]).sort();
      expect(names).toEqual(expect.arrayContaining(['HOME', 'LANG', 'PATH', 'TERM']));
      expect(names).not.toContain('TOOLGATE_PARENT_SECRET');
      const refused = await host.process.spawn('env', [], { TOOLGATE_PARENT_SECRET: 'x' }, {}).catch((error: unknown) => error);
      expect((refused as ToolPolicyError).reason).toBe('env_not_allowed');
      const reserved = await host.process.spawn('env', [], { LD_PRELOAD: '/tmp/x.so' }, {}).catch((error: unknown) => error);
      expect((reserved as ToolPolicyError).reason).toBe('env_not_allowed');
    } finally {
      delete process.env.TOOLGATE_PARENT_SECRET;
    }
  });

  it('in a workspace past the walk bound, the file tools still hold the hooks folder core.hooksPath names', async () => {
    await mkdir(path.join(setup.workspace, '.husky'), { recursive: true });
    await writeFile(path.join(setup.workspace, '.husky/pre-commit'), '#!/bin/sh\nexit 0\n');
    for (let index = 0; index < 12; index += 1) await mkdir(path.join(setup.workspace, 'node_modules', `p${index}`), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: setup.workspace });
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: setup.workspace });
    const host = makeHost({ scope: 'workspace-write', maskWalkLimit: { entries: 5, milliseconds: 2000 } });
    const refused = await host.fs.writeFile('.husky/pre-commit', 'touch PWNED\n').catch((error: unknown) => error);
    expect((refused as ToolPolicyError).reason).toBe('protected_path');
    expect(await readFile(path.join(setup.workspace, '.husky/pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  });

  it('runs without a shell: metacharacters are plain arguments', async () => {
    const host = makeHost();
    const result = await host.process.spawn('echo', ['hi;', 'touch', 'pwned', '$(id)', '|', 'cat'], {}, {});
    expect(result.stdout).toBe('hi; touch pwned $(id) | cat\n');
    expect(await exists(path.join(setup.workspace, 'pwned'))).toBe(false);
  });

  it('never runs ./git or any program from the workspace', async () => {
    const marker = path.join(setup.base, 'fake-git-ran');
    const fake = path.join(setup.workspace, 'git');
    await writeFile(fake, `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(fake, 0o755);
    await mkdir(path.join(setup.workspace, 'node_modules/.bin'), { recursive: true });
    await symlink(fake, path.join(setup.workspace, 'node_modules/.bin/tool'));
    const host = makeHost();
    for (const command of ['./git', fake, 'node_modules/.bin/tool', 'tool', '../ws/git']) {
      const error = await host.process.spawn(command, ['--version'], {}, {}).catch((caught: unknown) => caught);
      expect((error as ToolPolicyError).reason, command).toBe('executable_not_found');
    }
    const real = await host.process.spawn('git', ['--version'], {}, {});
    expect(real.stdout).toMatch(/^git version/);
    expect(await exists(marker)).toBe(false);
  });

  it('never runs a program on the PATH that is a link to a file of the workspace (npm link, a linked script)', async () => {
    const marker = path.join(setup.base, 'linked-tool-ran');
    const script = path.join(setup.workspace, 'linked-tool.sh');
    await writeFile(script, `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(script, 0o755);
    const bin = path.join(setup.base, 'bin');
    await mkdir(bin, { recursive: true });
    await symlink(script, path.join(bin, 'linked-tool'));
    await symlink('/bin/true', path.join(bin, 'system-tool'));
    const host = makeHost({ executablePath: [bin, '/usr/bin', '/bin'] });
    for (const command of ['linked-tool', path.join(bin, 'linked-tool')]) {
      const error = await host.process.spawn(command, [], {}, {}).catch((caught: unknown) => caught);
      expect((error as ToolPolicyError).reason, command).toBe('executable_not_found');
    }
    expect((await host.process.spawn('system-tool', [], {}, {})).exitCode).toBe(0);
    expect(await exists(marker)).toBe(false);
  });

  it('jails the working directory', async () => {
    const host = makeHost();
    await mkdir(path.join(setup.workspace, 'sub'), { recursive: true });
    expect((await host.process.spawn('pwd', [], {}, { cwd: 'sub' })).stdout.trim()).toBe(path.join(host.workspace, 'sub'));
    const escaped = await host.process.spawn('pwd', [], {}, { cwd: '../outside' }).catch((error: unknown) => error);
    expect((escaped as ToolPolicyError).reason).toBe('scope_denied');
    await symlink(setup.outside, path.join(setup.workspace, 'out-link'));
    const linked = await host.process.spawn('pwd', [], {}, { cwd: 'out-link' }).catch((error: unknown) => error);
    expect((linked as ToolPolicyError).reason).toBe('symlink_refused');
  });

  it('caps output and reports truncation', async () => {
    const host = makeHost();
    const result = await host.process.spawn('yes', [], {}, { maxOutputBytes: 1000, timeoutMs: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(1000);
    expect(result.timedOut).toBe(false);
  });

  it('kills the whole process group on timeout, leaving no orphan', async () => {
    const host = makeHost({ spillDir: path.join(setup.base, 'spill-kill') });
    const result = await host.process.spawn('sh', ['-c', 'sleep 30 & echo $!; sleep 30'], {}, { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(alive(grandchild)).toBe(false);
  });

  it('refuses entry when cancelled during executable resolution, and kills on a later abort', async () => {
    const host = makeHost();
    const marker = path.join(setup.workspace, 'started');
    const controller = new AbortController();
    const pending = host.process.spawn('touch', [marker], {}, {}, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(await exists(marker)).toBe(false);
    const late = new AbortController();
    const running = host.process.spawn('sleep', ['30'], {}, {}, late.signal);
    setTimeout(() => late.abort(), 100);
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
  });
});

/**
 * A git repository in the setup.workspace and a payload script in it that records
 * each run in `marker` and passes its input through (so a filter that runs
 * it still works).
 */
async function repositoryWithPayload(name: string): Promise<{ repo: string; marker: string; payload: string }> {
  const repo = path.join(setup.workspace, name);
  await mkdir(repo);
  execFileSync('git', ['init', '-q', repo]);
  const marker = path.join(setup.base, `${name}-payload-ran`);
  const payload = path.join(repo, 'payload.sh');
  await writeFile(payload, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
  await chmod(payload, 0o755);
  return { repo, marker, payload };
}

describe('process: git hardening', () => {
  it('does not execute a repo-local core.fsmonitor, pager, external diff or hook', async () => {
    const { repo, marker, payload } = await repositoryWithPayload('repo');
    execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', payload]);
    execFileSync('git', ['-C', repo, 'config', 'core.pager', payload]);
    execFileSync('git', ['-C', repo, 'config', 'diff.external', payload]);
    await mkdir(path.join(repo, '.git/hooks'), { recursive: true });
    await writeFile(path.join(repo, '.git/hooks/pre-commit'), `#!/bin/sh\necho hook >> ${marker}\n`);
    await chmod(path.join(repo, '.git/hooks/pre-commit'), 0o755);
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    const host = makeHost({ env: { set: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' } } });
    const status = await host.process.spawn('git', ['status', '--porcelain'], {}, { cwd: 'repo' });
    expect(status.stdout).toContain('a.txt');
    await host.process.spawn('git', ['add', 'a.txt'], {}, { cwd: 'repo' });
    const commit = await host.process.spawn('git', ['commit', '-m', 'x'], {}, { cwd: 'repo' });
    expect(commit.exitCode).toBe(0);
    await writeFile(path.join(repo, 'a.txt'), 'two\n');
    const diff = await host.process.spawn('git', ['diff'], {}, { cwd: 'repo' });
    expect(diff.stdout).toContain('+two');
    expect(await readFile(marker, 'utf8').catch(() => '')).toBe('');
  });
});

describe('process: repository-named git drivers', () => {
  const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };

  it('never runs a filter, textconv, diff or merge driver, or a gpg program, that the repository configuration names, even through an include', async () => {
    const { repo, marker, payload } = await repositoryWithPayload('drivers');
    const config = (key: string, value: string): void => void execFileSync('git', ['-C', repo, 'config', key, value]);
    config('filter.Evil.clean', payload);
    config('filter.Evil.process', payload);
    config('filter.Evil.required', 'true');
    config('diff.conv.textconv', payload);
    config('diff.conv.command', payload);
    config('merge.m.driver', payload);
    config('gpg.program', payload);
    config('commit.gpgSign', 'false');
    // A driver defined in a file the repository config includes is the repository's too.
    await writeFile(path.join(repo, '.git', 'more.cfg'), `[filter "Hidden"]\n\tsmudge = ${payload}\n\tclean = ${payload}\n`);
    config('include.path', 'more.cfg');
    await writeFile(path.join(repo, '.gitattributes'), '*.txt filter=Evil diff=conv merge=m\n*.md filter=Hidden\n');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    await writeFile(path.join(repo, 'b.md'), 'bee\n');
    const host = makeHost({ env: { set: identity } });

    // From the setup.workspace root through -C: the probe reads the same repository the command does.
    const add = await host.process.spawn('git', ['-C', 'drivers', 'add', '.'], {}, {});
    expect(add.exitCode).toBe(0);
    const commit = await host.process.spawn('git', ['commit', '-q', '-m', 'x'], {}, { cwd: 'drivers' });
    expect(commit.exitCode).toBe(0);
    // What was stored is the file itself, not a filter's output.
    const stored = await host.process.spawn('git', ['show', 'HEAD:a.txt'], {}, { cwd: 'drivers' });
    expect(stored.stdout).toBe('one\n');
    await writeFile(path.join(repo, 'a.txt'), 'two\n');
    const diff = await host.process.spawn('git', ['diff'], {}, { cwd: 'drivers' });
    expect(diff.stdout).toContain('+two');
    await rm(path.join(repo, 'b.md'));
    const checkout = await host.process.spawn('git', ['checkout', '--', 'b.md'], {}, { cwd: 'drivers' });
    expect(checkout.exitCode).toBe(0);
    expect(await readFile(path.join(repo, 'b.md'), 'utf8')).toBe('bee\n');
    expect(await readFile(marker, 'utf8').catch(() => '')).toBe('');

    // The control: plain git, without the host, does run the repository's clean filter.
    execFileSync('git', ['-C', repo, 'config', '--unset', 'filter.Evil.process']);
    execFileSync('git', ['-C', repo, 'add', 'a.txt']);
    expect(await readFile(marker, 'utf8')).toContain('payload.sh');
  });

  it('refuses to run git when the repository configuration cannot be read, and adds nothing for other programs', async () => {
    const repo = path.join(setup.workspace, 'broken');
    await mkdir(repo);
    execFileSync('git', ['init', '-q', repo]);
    await writeFile(path.join(repo, '.git', 'config'), '[core\n\tbroken = = =\n');
    const host = makeHost();
    const refused = await host.process.spawn('git', ['status'], {}, { cwd: 'broken' }).catch((caught: unknown) => caught);
    expect((refused as ToolgateError).code).toBe('TOOL_UNAVAILABLE');
    const env = await host.process.spawn('env', [], {}, {});
    expect(env.stdout).toContain('GIT_CONFIG_COUNT=15');
  });
});
