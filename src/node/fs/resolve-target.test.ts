import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { chmod, link, mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPolicy, createConfirm, createToolRegistry, ToolPolicyError, type CreatePolicyOptions, type ResolvedPath, type ToolApprovalRequest } from '../../core/internal.js';
import { MAX_RESOLVED_ARGUMENTS } from '../../core/policy/argument-paths.js';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost, NodeHostOptions } from '../node-host-types.js';
import { builtinTools } from '../tools/builtin-tools.js';
import { MAX_LINKS } from './walk-real-path.js';

let base: string;
let workspace: string;
let outside: string;
let host: NodeHost;

function makeHost(options: Partial<NodeHostOptions> = {}): NodeHost {
  return createNodeHost({ workspace, spillDir: path.join(base, `spill-${Math.random().toString(36).slice(2)}`), sandbox: 'off', ...options });
}

function resolveOne(requested: string, on: NodeHost = host): ResolvedPath {
  const [file] = on.resolve({ tool: 'read_file', access: 'read', paths: [requested] }).files;
  if (file === undefined) throw new Error('no answer');
  return file;
}

function refusal(attempt: () => unknown): ToolPolicyError {
  try {
    attempt();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolPolicyError);
    return error as ToolPolicyError;
  }
  throw new Error('expected a refusal');
}

beforeEach(async () => {
  base = realpathSync(await mkdtemp(path.join(tmpdir(), 'toolgate-resolve-')));
  workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET');
  await writeFile(path.join(workspace, 'hello.txt'), 'hello\n');
  await mkdir(path.join(workspace, '.git'));
  await writeFile(path.join(workspace, '.git', 'config'), '[core]\n\tbare = false\n');
  await writeFile(path.join(workspace, '.env'), 'TOKEN=1\n');
  host = makeHost();
});

afterEach(async () => {
  await host.close();
  await rm(base, { recursive: true, force: true });
});

describe('host.resolve: real paths and flags', () => {
  it('reports a plain file as it is: same path and real path, no flag, an identity', () => {
    const file = resolveOne('./sub/../hello.txt');
    expect(file).toMatchObject({ requested: './sub/../hello.txt', path: 'hello.txt', real: 'hello.txt', protected: false, linkTraversal: false, outside: false, created: false, hardLinked: false });
    expect(file.identity).toMatch(/^file:\d+:\d+$/);
    expect(resolveOne('.')).toMatchObject({ path: '.', real: '.', created: false });
    expect(resolveOne('.').identity).toMatch(/^directory:/);
  });

  it('follows an inner link and a chain of links, and says a link was crossed', async () => {
    await symlink('hello.txt', path.join(workspace, 'inner'));
    await symlink('inner', path.join(workspace, 'chain'));
    await mkdir(path.join(workspace, 'dir'));
    await symlink('../hello.txt', path.join(workspace, 'dir', 'up'));
    for (const requested of ['inner', 'chain', 'dir/up']) {
      expect(resolveOne(requested), requested).toMatchObject({ path: requested, real: 'hello.txt', linkTraversal: true, outside: false, protected: false, created: false });
      expect(resolveOne(requested).identity).toBe(resolveOne('hello.txt').identity);
    }
  });

  it('climbs from where a link really leads: `..` after a link is the parent of its target, as the kernel reads it', async () => {
    await mkdir(path.join(workspace, 'sub', 'deeper'), { recursive: true });
    await writeFile(path.join(workspace, 'sub', 'hello.txt'), 'sub hello');
    await symlink('sub/deeper', path.join(workspace, 'd'));
    await symlink('d/../hello.txt', path.join(workspace, 'l'));
    expect(resolveOne('l')).toMatchObject({ real: 'sub/hello.txt', linkTraversal: true });
    // The kernel agrees (Node's JavaScript realpathSync folds `..` lexically and says hello.txt).
    expect(path.relative(workspace, realpathSync.native(path.join(workspace, 'l')))).toBe('sub/hello.txt');
    expect(await readFile(path.join(workspace, 'l'), 'utf8')).toBe('sub hello');
    expect((await host.fs.readFile('l', { expected: resolveOne('l') })).content).toBe('sub hello');
  });

  it('reports a dangling link as a link to a new file, and the capability still refuses it at execution', async () => {
    await symlink('nothere/file.txt', path.join(workspace, 'dangle'));
    expect(resolveOne('dangle')).toMatchObject({ real: 'nothere/file.txt', linkTraversal: true, created: true, outside: false });
    await expect(host.fs.writeFile('dangle', 'x', { expected: resolveOne('dangle') })).rejects.toMatchObject({ reason: 'symlink_refused' });
    await expect(host.fs.readFile('dangle')).rejects.toMatchObject({ reason: 'symlink_refused' });
    await expect(readFile(path.join(workspace, 'nothere', 'file.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reports a link leading out with its absolute real path, outside; a path spelled outside is not looked at', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'out'));
    await symlink('../outside', path.join(workspace, 'outdir'));
    expect(resolveOne('out')).toMatchObject({ path: 'out', real: path.join(outside, 'secret.txt'), linkTraversal: true, outside: true, created: false });
    expect(resolveOne('outdir/new.txt')).toMatchObject({ real: path.join(outside, 'new.txt'), linkTraversal: true, outside: true, created: true });
    for (const requested of ['../outside/secret.txt', path.join(outside, 'secret.txt')]) {
      const file = resolveOne(requested);
      expect(file, requested).toMatchObject({ path: path.join(outside, 'secret.txt'), real: path.join(outside, 'secret.txt'), outside: true, linkTraversal: false });
      expect(file.identity, requested).toBeUndefined();
    }
  });

  it('classifies the real target: a link to .git, vendor -> .git then vendor/config, envlink -> .env', async () => {
    await symlink('.git', path.join(workspace, 'gitlink'));
    await symlink('.git', path.join(workspace, 'vendor'));
    await symlink('.env', path.join(workspace, 'envlink'));
    expect(resolveOne('gitlink')).toMatchObject({ path: 'gitlink', real: '.git', protected: true, linkTraversal: true });
    expect(resolveOne('vendor/config')).toMatchObject({ path: 'vendor/config', real: '.git/config', protected: true, linkTraversal: true, outside: false });
    expect(resolveOne('vendor/hooks/pre-commit')).toMatchObject({ real: '.git/hooks/pre-commit', protected: true, created: true });
    expect(resolveOne('envlink')).toMatchObject({ path: 'envlink', real: '.env', protected: true, linkTraversal: true });
  });

  it('protects a nested repository, a gitdir file, and case variants of .git and .env', async () => {
    await mkdir(path.join(workspace, 'vendor', 'lib', '.git'), { recursive: true });
    await writeFile(path.join(workspace, 'vendor', 'lib', '.git', 'config'), '[core]\n');
    await mkdir(path.join(workspace, 'sub'));
    await writeFile(path.join(workspace, 'sub', '.git'), 'gitdir: ../.git/modules/sub\n');
    for (const requested of ['vendor/lib/.git/config', 'sub/.git', '.GIT/config', '.Git/HEAD', '.Env', '.ENV.local', 'deep/down/.env.production']) {
      expect(resolveOne(requested).protected, requested).toBe(true);
    }
    expect(resolveOne('sub/.git')).toMatchObject({ created: false });
    expect(resolveOne('vendor/lib/index.js').protected).toBe(false);
  });

  it('protects key material and cloud credentials by default, but not every file that starts with id_', () => {
    for (const requested of ['certs/server.pem', 'config/tls.key', 'deploy/id_rsa', 'keys/id_ed25519.pub', '.ssh/config', '.gnupg/pubring.kbx', '.netrc', '.npmrc', '.pypirc', '.docker/config.json', '.aws/credentials', '.config/gcloud/credentials.db', '.azure/accessTokens.json', '.git-credentials', '.toolgate/policy.json', 'toolgate.config.json']) {
      expect(resolveOne(requested).protected, requested).toBe(true);
    }
    for (const requested of ['src/id_generator.ts', 'docs/keys.md', 'notes/environment.md', 'hello.txt']) expect(resolveOne(requested).protected, requested).toBe(false);
  });

  it("adds the host's protectedPaths (globs and absolute paths) and private paths to the defaults", () => {
    const guarded = makeHost({ protectedPaths: ['secrets/**', path.join(workspace, 'prod.json')] });
    for (const requested of ['secrets/a.txt', 'prod.json', 'PROD.JSON', '.env']) expect(resolveOne(requested, guarded).protected, requested).toBe(true);
    expect(resolveOne('other.json', guarded).protected).toBe(false);
    return guarded.close();
  });

  it('refuses a private path and the host stores at once, as spelled, in another case or through a link, since no approval opens them', async () => {
    const guarded = makeHost({ privatePaths: ['state', path.join(workspace, 'journal.db')] });
    await mkdir(path.join(workspace, 'state'));
    await symlink('state', path.join(workspace, 'statelink'));
    await symlink('journal.db', path.join(workspace, 'dblink'));
    for (const requested of ['state/x', 'STATE/x', 'state', 'journal.db', './a/../journal.db', 'statelink/console.json', 'dblink']) {
      expect(refusal(() => resolveOne(requested, guarded)).reason, requested).toBe('protected_path');
    }
    expect(resolveOne('state.txt', guarded).protected).toBe(false);
    return guarded.close();
  });

  it('flags a hard link on both of its names, never a directory', async () => {
    await link(path.join(workspace, 'hello.txt'), path.join(workspace, 'hard.txt'));
    expect(resolveOne('hard.txt')).toMatchObject({ hardLinked: true, linkTraversal: false });
    expect(resolveOne('hello.txt').hardLinked).toBe(true);
    expect(resolveOne('.git').hardLinked).toBe(false);
  });

  it('reports a new file under missing folders with the identity of its deepest existing folder', async () => {
    await mkdir(path.join(workspace, 'a'));
    const file = resolveOne('a/b/c/new.txt');
    expect(file).toMatchObject({ path: 'a/b/c/new.txt', real: 'a/b/c/new.txt', created: true, linkTraversal: false, hardLinked: false });
    expect(file.identity).toBe(`${resolveOne('a').identity ?? ''}/b/c/new.txt`);
    // Below a file nothing exists: reported as new, and the write is refused as before.
    expect(resolveOne('hello.txt/x')).toMatchObject({ real: 'hello.txt/x', created: true });
  });

  it('refuses an empty path, a NUL byte, a lone surrogate and a symlink loop, typed', async () => {
    expect(refusal(() => resolveOne('')).reason).toBe('invalid_path');
    expect(refusal(() => resolveOne('a\0b')).reason).toBe('invalid_path');
    expect(refusal(() => resolveOne('a\ud800b')).reason).toBe('invalid_path');
    await symlink('loop-b', path.join(workspace, 'loop-a'));
    await symlink('loop-a', path.join(workspace, 'loop-b'));
    await symlink('self/x', path.join(workspace, 'self'));
    for (const requested of ['loop-a', 'loop-b/x', 'self']) expect(refusal(() => resolveOne(requested)).reason, requested).toBe('symlink_refused');
  });

  it(`follows ${MAX_LINKS} links and refuses one more, as the kernel does`, async () => {
    for (let index = 1; index <= MAX_LINKS + 1; index += 1) await symlink(index === 1 ? 'hello.txt' : `link-${index - 1}`, path.join(workspace, `link-${index}`));
    expect(resolveOne(`link-${MAX_LINKS}`)).toMatchObject({ real: 'hello.txt', linkTraversal: true });
    expect(refusal(() => resolveOne(`link-${MAX_LINKS + 1}`)).reason).toBe('symlink_refused');
  });

  it('in the full tier, walks and classifies a path outside the workspace by its absolute real path', async () => {
    await mkdir(path.join(outside, '.ssh'));
    await writeFile(path.join(outside, '.ssh', 'id_ed25519'), 'KEY');
    await symlink(path.join(outside, '.ssh'), path.join(outside, 'keys'));
    const full = makeHost({ scope: 'full' });
    expect(resolveOne(path.join(outside, 'keys', 'id_ed25519'), full)).toMatchObject({ real: path.join(outside, '.ssh', 'id_ed25519'), protected: true, outside: true, linkTraversal: true });
    expect(resolveOne(path.join(outside, 'secret.txt'), full)).toMatchObject({ protected: false, outside: true, created: false });
    await full.close();
  });

  it('names the executable the process capability would run, and none for a program it would refuse', async () => {
    const bin = path.join(base, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    const withBin = makeHost({ executablePath: [bin, '/usr/bin', '/bin'] });
    const resolve = (program: string) => withBin.resolve({ tool: 'run_command', access: 'read', paths: [], program });
    expect(resolve('tool')).toEqual({ files: [], executable: path.join(bin, 'tool') });
    expect(resolve('sh').executable).toMatch(/\/bin\/sh$/);
    for (const program of ['./tool', 'bin/tool', 'no-such-program-here', path.join(workspace, 'hello.txt')]) expect(resolve(program).executable, program).toBeUndefined();
    // A program on the PATH that is a link to a file of the workspace (`npm link`) is the workspace's file.
    symlinkSync(path.join(workspace, 'hello.txt'), path.join(bin, 'linked'));
    await chmod(path.join(workspace, 'hello.txt'), 0o755);
    for (const program of ['linked', path.join(bin, 'linked')]) expect(resolve(program).executable, program).toBeUndefined();
    await withBin.close();
  });
});

describe('host.resolve: a folder holding what a protected link leads to', () => {
  it('protects a write of that folder, under its name or through a link to it, and leaves a read of it and other folders open', async () => {
    await mkdir(path.join(workspace, 'config'));
    await writeFile(path.join(workspace, 'config', 'dev.secrets'), 'TOKEN=2\n');
    await rm(path.join(workspace, '.env'));
    await symlink('config/dev.secrets', path.join(workspace, '.env'));
    await mkdir(path.join(workspace, 'other'));
    await symlink('config', path.join(workspace, 'cfg'));
    const linked = makeHost();
    try {
      const write = (requested: string): ResolvedPath | undefined => linked.resolve({ tool: 'move_file', access: 'write', paths: [requested] }).files[0];
      expect(write('config')?.protected).toBe(true);
      expect(write('cfg')?.protected).toBe(true);
      expect(write('other')?.protected).toBe(false);
      expect(resolveOne('config', linked).protected).toBe(false);
    } finally {
      await linked.close();
    }
  });
});

describe("host.resolve: what a git command's repository holds", () => {
  it('answers for the repository asked, and only when asked', () => {
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    writeFileSync(path.join(workspace, '.env'), 'SALT=x\n');
    execFileSync('git', ['add', '.env'], { cwd: workspace });
    const asked = host.resolve({ tool: 'run_command', access: 'read', paths: ['.'], program: 'git', repository: '.' });
    expect(asked.objectStore).toEqual({ protectedNames: true, unreachable: false, namesUnreachable: false });
    expect(host.resolve({ tool: 'run_command', access: 'read', paths: ['.'], program: 'git' }).objectStore).toBeUndefined();
  });
});

describe('host.resolve: the paths a command\'s arguments name', () => {
  const resolveArguments = (args: readonly string[], on: NodeHost = host): readonly ResolvedPath[] => {
    const answer = on.resolve({ tool: 'run_command', access: 'read', paths: ['.'], program: 'cat', arguments: args });
    if (answer.arguments === undefined) throw new Error('no arguments answered');
    return answer.arguments;
  };

  it('follows a link, a chain of links and a link to a folder to the protected file they name', async () => {
    await symlink('.env', path.join(workspace, 'settings.txt'));
    await symlink('settings.txt', path.join(workspace, 'chain.txt'));
    await symlink('.git', path.join(workspace, 'cfg'));
    const [link, chain, inFolder] = resolveArguments(['settings.txt', 'chain.txt', 'cfg/config']);
    expect(link).toMatchObject({ requested: 'settings.txt', path: 'settings.txt', real: '.env', protected: true, linkTraversal: true, hardLinked: false });
    expect(chain).toMatchObject({ path: 'chain.txt', real: '.env', protected: true, linkTraversal: true });
    expect(inFolder).toMatchObject({ path: 'cfg/config', real: '.git/config', protected: true, linkTraversal: true });
  });

  it('climbs a `..` after a link from where the link really led', async () => {
    await mkdir(path.join(workspace, 'sub', 'deep'), { recursive: true });
    await symlink('sub/deep', path.join(workspace, 'up'));
    const [climbed] = resolveArguments(['up/../../.env']);
    expect(climbed).toMatchObject({ real: '.env', protected: true, linkTraversal: true, outside: false });
  });

  it('reports a hard link to a protected file as hard-linked, under its ordinary name', async () => {
    await link(path.join(workspace, '.env'), path.join(workspace, 'backup.txt'));
    const [hard] = resolveArguments(['backup.txt']);
    expect(hard).toMatchObject({ path: 'backup.txt', real: 'backup.txt', protected: false, hardLinked: true, linkTraversal: false });
  });

  it('leaves a missing name unprotected unless its spelling is protected', () => {
    const [missing, spelledProtected, ordinary] = resolveArguments(['nothere/x.txt', '.env.local', 'hello.txt']);
    expect(missing).toMatchObject({ path: 'nothere/x.txt', created: true, protected: false, hardLinked: false });
    expect(spelledProtected).toMatchObject({ path: '.env.local', created: true, protected: true });
    expect(ordinary).toMatchObject({ path: 'hello.txt', real: 'hello.txt', created: false, protected: false, hardLinked: false });
  });

  it('stamps an argument that is an existing regular file with what it holds, and nothing else', async () => {
    await mkdir(path.join(workspace, 'folder'), { recursive: true });
    const [file, folder, missing] = resolveArguments(['hello.txt', 'folder', 'nothere.sh']);
    expect(file?.contentStamp).toMatch(/^\d+:\d+:\d+:[\d.]+:[\d.]+$/);
    expect(folder?.contentStamp).toBeUndefined();
    expect(missing?.contentStamp).toBeUndefined();
    // The same bytes count read again; other bytes of the same length in the same file do not.
    expect(resolveArguments(['hello.txt'])[0]?.contentStamp).toBe(file?.contentStamp);
    const before = await readFile(path.join(workspace, 'hello.txt'), 'utf8');
    await writeFile(path.join(workspace, 'hello.txt'), 'x'.repeat(Buffer.byteLength(before)));
    expect(resolveArguments(['hello.txt'])[0]?.contentStamp).not.toBe(file?.contentStamp);
    // A path a call reads or writes is not stamped: a file tool binds its target by identity.
    expect(host.resolve({ tool: 'read_file', access: 'read', paths: ['hello.txt'] }).files[0]?.contentStamp).toBeUndefined();
  });

  it('stamps two files of the same length written in one tick apart, and a folder renamed into place carries its own', async () => {
    await mkdir(path.join(workspace, 'tools'));
    await mkdir(path.join(workspace, 'staging'));
    const [first, second] = [path.join(workspace, 'tools', 'run.sh'), path.join(workspace, 'staging', 'run.sh')];
    // Written back to back until the clock gives both the same times, as an archive's extraction does.
    let twins = false;
    for (let attempt = 0; attempt < 50 && !twins; attempt += 1) {
      rmSync(first, { force: true });
      rmSync(second, { force: true });
      writeFileSync(first, 'echo ok\n');
      writeFileSync(second, 'echo no\n');
      const [a, b] = [statSync(first), statSync(second)];
      twins = a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
    }
    expect(twins).toBe(true);
    const judged = resolveArguments(['tools/run.sh'])[0]?.contentStamp;
    expect(resolveArguments(['staging/run.sh'])[0]?.contentStamp).not.toBe(judged);
    await rename(path.join(workspace, 'tools'), path.join(workspace, 'old'));
    await rename(path.join(workspace, 'staging'), path.join(workspace, 'tools'));
    expect(resolveArguments(['tools/run.sh'])[0]?.contentStamp).not.toBe(judged);
  });

  it('answers nothing about arguments when none were asked', () => {
    expect(host.resolve({ tool: 'run_command', access: 'read', paths: ['.'], program: 'cat' }).arguments).toBeUndefined();
  });
});

describe('host.resolve in the pipeline', () => {
  function pipeline(rules: Pick<CreatePolicyOptions, 'allowedCommandGlobs' | 'rules'> = {}) {
    const prompts: ToolApprovalRequest[] = [];
    const controller = createConfirm({
      mode: 'accept-edits',
      prompt: (request) => {
        prompts.push(request);
        return Promise.resolve({ outcome: 'reject', reason: 'not this one' });
      },
    });
    const registry = createToolRegistry({ tools: builtinTools, host, policy: createPolicy({ scope: 'workspace-write', mode: 'accept-edits', ...rules }) });
    const context = { grantedTools: builtinTools.map((tool) => tool.name), approval: { confirm: controller.confirm } };
    let id = 0;
    const call = (name: string, args: unknown) => registry.dispatch({ callId: `c${(id += 1)}`, name, arguments: args }, context);
    return { call, prompts };
  }

  it('sends write_file vendor/config with vendor -> .git to a person, showing the real .git/config; a reject leaves it unchanged', async () => {
    await symlink('.git', path.join(workspace, 'vendor'));
    const { call, prompts } = pipeline();
    const outcome = await call('write_file', { path: 'vendor/config', content: '[core]\n\tfsmonitor = "touch pwned"\n' });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.code).toBe('DENIED_BY_USER');
    expect(prompts).toHaveLength(1);
    expect(prompts[0]?.resolved?.files[0]).toMatchObject({ requested: 'vendor/config', path: 'vendor/config', real: '.git/config', protected: true, linkTraversal: true, outside: false });
    expect(prompts[0]?.reasons.protectedPath).toBe(true);
    expect(await readFile(path.join(workspace, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
  });

  it('sends a write through envlink -> .env to a person too, while an ordinary edit is approved by the mode', async () => {
    await symlink('.env', path.join(workspace, 'envlink'));
    const { call, prompts } = pipeline();
    expect((await call('write_file', { path: 'envlink', content: 'TOKEN=stolen\n' })).ok).toBe(false);
    expect(prompts.map((request) => request.resolved?.files[0]?.real)).toEqual(['.env']);
    expect(await readFile(path.join(workspace, '.env'), 'utf8')).toBe('TOKEN=1\n');
    expect((await call('write_file', { path: 'notes/today.md', content: 'ok' })).ok).toBe(true);
    expect(prompts).toHaveLength(1);
  });

  it('sends a command naming a link or a hard link to .env, or more paths than it resolves, to a person; ordinary names are not protected', async () => {
    await symlink('.env', path.join(workspace, 'settings.txt'));
    await link(path.join(workspace, '.env'), path.join(workspace, 'backup.txt'));
    const { call, prompts } = pipeline({ allowedCommandGlobs: ['cat *'], rules: [{ tool: 'run_command', decision: 'allow', source: 'project', match: { argv: ['cat', '*'] } }] });
    const many = Array.from({ length: MAX_RESOLVED_ARGUMENTS + 1 }, () => 'hello.txt');
    for (const command of [['cat', 'settings.txt'], ['cat', 'backup.txt'], ['cat', ...many]]) {
      const outcome = await call('run_command', { command });
      expect(!outcome.ok && outcome.error.code, command.slice(0, 2).join(' ')).toBe('DENIED_BY_USER');
    }
    expect(prompts.map((request) => request.reasons.protectedPath)).toEqual([true, true, true]);
    expect(prompts[0]?.resolved?.command?.arguments?.[0]).toMatchObject({ real: '.env', protected: true, linkTraversal: true });
    // This mode asks before any command; an ordinary one is asked as governed, not as a protected path.
    await call('run_command', { command: ['cat', ...many.slice(1)] });
    expect(prompts[3]?.reasons).toMatchObject({ reason: 'governed', protectedPath: false });
  });

  it('refuses a link leading out before anyone is asked', async () => {
    await symlink('../outside', path.join(workspace, 'outdir'));
    const { call, prompts } = pipeline();
    const outcome = await call('write_file', { path: 'outdir/secret.txt', content: 'pwned' });
    expect(!outcome.ok && (outcome.error as ToolPolicyError).reason).toBe('symlink_refused');
    expect(prompts).toEqual([]);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
  });
});
