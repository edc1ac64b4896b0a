import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolgateError, ToolPolicyError } from '../../core/internal.js';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost, NodeHostOptions } from '../node-host-types.js';

let base: string;
let workspace: string;
let outside: string;
let host: NodeHost;

function makeHost(options: Partial<NodeHostOptions> = {}): NodeHost {
  return createNodeHost({ workspace, spillDir: path.join(base, 'spill'), sandbox: 'off', ...options });
}

async function denial(promise: Promise<unknown>): Promise<ToolPolicyError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolPolicyError);
  return error as ToolPolicyError;
}

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-fs-'));
  workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET');
  await writeFile(path.join(workspace, 'hello.txt'), 'line 1\nline 2\nline 3\n');
  host = makeHost();
});

afterEach(async () => {
  await host.close();
  await rm(base, { recursive: true, force: true });
});

describe('fs: reading', () => {
  it('reads text with a sha256 and a line window', async () => {
    const whole = await host.fs.readFile('hello.txt');
    expect(whole).toMatchObject({ content: 'line 1\nline 2\nline 3\n', bytes: 21, partial: false });
    expect(whole.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await host.fs.readFile('hello.txt', { offset: 2, limit: 1 })).toMatchObject({ content: 'line 2', partial: true });
  });

  it('gives the sha256 of a large file as of a small one, text or binary (taken on the thread pool past 64 KiB)', async () => {
    const files = {
      'ascii.txt': Buffer.from('abcdefghijklmnopqrstuvwxyz01234\n'.repeat(8 * 1024)),
      'utf8.txt': Buffer.from('naïve café €\n'.repeat(20 * 1024)),
      'blob.bin': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200 * 1024)]),
      'edge.txt': Buffer.alloc(64 * 1024, 'a'),
    };
    for (const [name, bytes] of Object.entries(files)) {
      await writeFile(path.join(workspace, name), bytes);
      const read = await host.fs.readFile(name);
      expect(read.sha256, name).toBe(createHash('sha256').update(bytes).digest('hex'));
      if (read.content !== undefined) expect(read.content, name).toBe(bytes.toString('utf8'));
    }
  });

  it('returns a binary file as a content-addressed media handle, never inline', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3]);
    await writeFile(path.join(workspace, 'image.png'), png);
    const read = await host.fs.readFile('image.png');
    expect(read.content).toBeUndefined();
    expect(read.media).toMatchObject({ mediaType: 'image/png', bytes: 12 });
    expect(read.media?.handle).toBe(`media:sha256:${read.sha256 ?? ''}`);
    const stored = await host.mediaStore.get(read.media?.handle ?? '');
    expect(Buffer.from(stored?.bytes ?? []).equals(png)).toBe(true);
  });

  it('cuts text over the size cap and refuses binary over it', async () => {
    const small = makeHost({ maxFileBytes: 8 });
    expect(await small.fs.readFile('hello.txt')).toMatchObject({ content: 'line 1\nl', partial: true, bytes: 21 });
    await writeFile(path.join(workspace, 'blob.bin'), Buffer.alloc(32, 0));
    expect((await denial(small.fs.readFile('blob.bin'))).reason).toBe('too_large');
    await small.close();
  });
});

describe('fs: the jail', () => {
  it.each([
    ['../outside/secret.txt'],
    ['a/../../outside/secret.txt'],
    ['hello.txt/../../outside/secret.txt'],
  ])('refuses the traversal %s as a recoverable scope denial', async (requested) => {
    const error = await denial(host.fs.readFile(requested));
    expect(error.reason).toBe('scope_denied');
    expect(error.recoverable).toBe(true);
    expect(error.message).not.toContain('secret.txt');
    expect(error.message).not.toContain(base);
  });

  it('refuses an absolute path outside the workspace, and accepts one inside', async () => {
    expect((await denial(host.fs.readFile(path.join(outside, 'secret.txt')))).reason).toBe('scope_denied');
    expect((await denial(host.fs.readFile('/etc/passwd'))).reason).toBe('scope_denied');
    expect((await host.fs.readFile(path.join(workspace, 'hello.txt'))).content).toContain('line 1');
  });

  it('refuses NUL bytes and empty paths, fatally', async () => {
    const error = await denial(host.fs.readFile('hello.txt\0../../etc/passwd'));
    expect(error.reason).toBe('invalid_path');
    expect(error.recoverable).toBe(false);
    expect((await denial(host.fs.readFile(''))).reason).toBe('invalid_path');
  });

  it('refuses a path holding a lone surrogate before it touches the disk: the kernel would get U+FFFD, another name', async () => {
    const before = await readdir(workspace);
    const error = await denial(host.fs.writeFile('note\ud800.txt', 'x'));
    expect(error.reason).toBe('invalid_path');
    expect((await denial(host.fs.readFile('hello\udc00.txt'))).reason).toBe('invalid_path');
    // A surrogate pair is a character like any other.
    await host.fs.writeFile('note\ud83d\ude00.txt', 'x');
    expect((await readdir(workspace)).sort()).toEqual([...before, 'note\ud83d\ude00.txt'].sort());
  });

  it('treats Unicode look-alikes of dots and slashes as plain names inside the workspace', async () => {
    for (const name of ['\u2024\u2024/outside/secret.txt', '\uff0e\uff0e\uff0foutside\uff0fsecret.txt', '..\u2215outside\u2215secret.txt']) {
      const error = await host.fs.readFile(name).then(() => undefined, (caught: unknown) => caught);
      expect(ToolgateError.isInstance(error)).toBe(true);
      expect((error as ToolgateError).code).toBe('EXECUTION_FAILED');
      const written = await host.fs.writeFile(name, 'x');
      expect(written.created).toBe(true);
    }
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('refuses symlinks leading outside: file, directory, chain and dangling', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'file-link'));
    await symlink(outside, path.join(workspace, 'dir-link'));
    await symlink(path.join(workspace, 'file-link'), path.join(workspace, 'chain-link'));
    await symlink(path.join(outside, 'missing.txt'), path.join(workspace, 'dangling-link'));
    for (const requested of ['file-link', 'dir-link/secret.txt', 'chain-link', 'dangling-link']) {
      const error = await denial(host.fs.readFile(requested));
      expect(error.reason, requested).toBe('symlink_refused');
      expect(error.recoverable).toBe(false);
    }
    for (const requested of ['file-link', 'dir-link/new.txt', 'chain-link', 'dangling-link']) {
      expect((await denial(host.fs.writeFile(requested, 'pwned'))).reason, requested).toBe('symlink_refused');
    }
    expect((await denial(host.fs.listDirectory('dir-link'))).reason).toBe('symlink_refused');
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('follows a symlink that stays inside the workspace', async () => {
    await symlink(path.join(workspace, 'hello.txt'), path.join(workspace, 'inner-link'));
    expect((await host.fs.readFile('inner-link')).content).toContain('line 2');
  });

  it('never writes through a hard link, and leaves both names intact', async () => {
    await link(path.join(outside, 'secret.txt'), path.join(workspace, 'hard.txt'));
    expect((await denial(host.fs.writeFile('hard.txt', 'pwned'))).reason).toBe('hardlink_refused');
    expect((await denial(host.fs.editFile('hard.txt', { oldText: 'TOP', newText: 'pwned' }))).reason).toBe('hardlink_refused');
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
  });

  it('refuses protected paths fatally, for reads and writes', async () => {
    const guarded = makeHost({ protectedPaths: ['.env', '.git', path.join(outside)] });
    await writeFile(path.join(workspace, '.env'), 'TOKEN=1');
    await mkdir(path.join(workspace, '.git'));
    for (const attempt of [guarded.fs.readFile('.env'), guarded.fs.writeFile('.git/config', 'x'), guarded.fs.writeFile('.env', 'x')]) {
      const error = await denial(attempt);
      expect(error.reason).toBe('protected_path');
      expect(error.recoverable).toBe(false);
    }
    await guarded.close();
  });

  it('holds absolute protected paths named through a symlinked workspace, for a file that appears only later too', async () => {
    const linked = path.join(base, 'linked-ws');
    await symlink(workspace, linked);
    await writeFile(path.join(workspace, 'config.json'), '{"token":"x"}');
    const guarded = createNodeHost({ workspace: linked, spillDir: path.join(base, 'spill-linked'), sandbox: 'off', protectedPaths: [path.join(linked, 'config.json'), path.join(linked, 'journal.db-wal')] });
    await writeFile(path.join(workspace, 'journal.db-wal'), 'later');
    for (const target of ['config.json', 'journal.db-wal', path.join(workspace, 'config.json')]) {
      expect((await denial(guarded.fs.readFile(target))).reason, target).toBe('protected_path');
    }
    // Spelled through the link, an absolute path is already refused as outside the jail's real root.
    await denial(guarded.fs.readFile(path.join(linked, 'config.json')));
    expect((await guarded.fs.readFile('hello.txt')).content).toContain('line 1');
    await guarded.close();
  });

  it('applies protected globs to names that merely start with two dots (a Kubernetes ..data folder)', async () => {
    const guarded = makeHost({ protectedPaths: ['**/*.pem', '**/secrets/**'] });
    await mkdir(path.join(workspace, '..data'));
    await writeFile(path.join(workspace, '..data', 'key.pem'), 'SECRET');
    await mkdir(path.join(workspace, '..secrets'));
    await mkdir(path.join(workspace, '..secrets', 'secrets'));
    await writeFile(path.join(workspace, '..secrets', 'secrets', 'token'), 'SECRET');
    for (const target of ['..data/key.pem', '..secrets/secrets/token']) {
      expect((await denial(guarded.fs.readFile(target))).reason, target).toBe('protected_path');
      expect((await denial(guarded.fs.writeFile(target, 'overwritten'))).reason, target).toBe('protected_path');
    }
    const listed = await guarded.fs.listDirectory('.', { depth: 3 });
    expect(JSON.stringify(listed)).not.toContain('key.pem');
    expect(JSON.stringify(listed)).not.toContain('token');
    expect(await readFile(path.join(workspace, '..data', 'key.pem'), 'utf8')).toBe('SECRET');
    await guarded.close();
  });

  it('holds an absolute protected path whose folders appear only later, named through a symlink', async () => {
    const linked = path.join(base, 'linked-ws');
    await symlink(workspace, linked);
    const guarded = createNodeHost({ workspace, spillDir: path.join(base, 'spill-linked'), sandbox: 'off', protectedPaths: [path.join(linked, 'config', 'prod', 'secret.key')] });
    await mkdir(path.join(workspace, 'config', 'prod'), { recursive: true });
    await writeFile(path.join(workspace, 'config', 'prod', 'secret.key'), 'PROD-SECRET');
    expect((await denial(guarded.fs.readFile('config/prod/secret.key'))).reason).toBe('protected_path');
    await guarded.close();
  });

  it('refuses the secret store and the spill directory even inside the workspace', async () => {
    const secretFile = path.join(workspace, 'secrets.json');
    await writeFile(secretFile, '{"k":"v"}');
    const guarded = makeHost({ secrets: { get: () => undefined, path: secretFile }, spillDir: path.join(workspace, '.spill') });
    expect((await denial(guarded.fs.readFile('secrets.json'))).reason).toBe('secret_store');
    expect((await denial(guarded.fs.writeFile('.spill/x', 'x'))).reason).toBe('secret_store');
    await guarded.close();
  });

  it('denies writes in the read-only tier as a recoverable scope denial', async () => {
    const readOnly = makeHost({ scope: 'read-only' });
    const error = await denial(readOnly.fs.writeFile('new.txt', 'x'));
    expect(error.reason).toBe('scope_denied');
    expect(error.recoverable).toBe(true);
    expect((await readOnly.fs.readFile('hello.txt')).content).toContain('line 1');
    await readOnly.close();
  });
});

describe('fs: writing', () => {
  it('creates parent directories and reports created/sha256', async () => {
    const written = await host.fs.writeFile('deep/er/new.txt', 'hello');
    expect(written).toMatchObject({ bytes: 5, created: true });
    expect(await readFile(path.join(workspace, 'deep/er/new.txt'), 'utf8')).toBe('hello');
    expect((await host.fs.writeFile('deep/er/new.txt', 'bye')).created).toBe(false);
  });

  it('honours expectedSha256 (optimistic concurrency) and leaves the file intact on a mismatch', async () => {
    const { sha256 } = await host.fs.readFile('hello.txt');
    await writeFile(path.join(workspace, 'hello.txt'), 'changed by someone else');
    const error = await host.fs.writeFile('hello.txt', 'mine', { expectedSha256: sha256 ?? '' }).then(() => undefined, (caught: unknown) => caught as ToolgateError);
    expect(error?.code).toBe('EXECUTION_FAILED');
    expect(error?.recoverable).toBe(true);
    expect(await readFile(path.join(workspace, 'hello.txt'), 'utf8')).toBe('changed by someone else');
    const fresh = await host.fs.readFile('hello.txt');
    expect((await host.fs.writeFile('hello.txt', 'mine', { expectedSha256: fresh.sha256 ?? '' })).bytes).toBe(4);
  });

  it('a failed write leaves the old file intact and no temp file behind', async () => {
    const small = makeHost({ maxFileBytes: 4 });
    expect((await denial(small.fs.writeFile('hello.txt', 'far too long'))).reason).toBe('too_large');
    expect(await readFile(path.join(workspace, 'hello.txt'), 'utf8')).toBe('line 1\nline 2\nline 3\n');
    await mkdir(path.join(workspace, 'adir'));
    expect((await denial(host.fs.writeFile('adir', 'x'))).reason).toBe('not_a_file');
    expect((await readdir(workspace)).filter((name) => name.includes('toolgate-tmp'))).toEqual([]);
    await small.close();
  });

  it('edits exact text once, refuses an ambiguous or missing match, replaces all on request', async () => {
    await writeFile(path.join(workspace, 'code.ts'), 'let a = 1;\nlet b = 1;\n');
    const ambiguous = await host.fs.editFile('code.ts', { oldText: '= 1', newText: '= 2' }).then(() => undefined, (caught: unknown) => caught as ToolgateError);
    expect(ambiguous?.message).toContain('occurs 2 times');
    const missing = await host.fs.editFile('code.ts', { oldText: 'nope', newText: 'x' }).then(() => undefined, (caught: unknown) => caught as ToolgateError);
    expect(missing?.message).toContain('not found');
    expect(await host.fs.editFile('code.ts', { oldText: 'let a = 1', newText: 'let a = $&' })).toMatchObject({ replacements: 1 });
    expect(await readFile(path.join(workspace, 'code.ts'), 'utf8')).toBe('let a = $&;\nlet b = 1;\n');
    expect(await host.fs.editFile('code.ts', { oldText: 'let', newText: 'const', replaceAll: true })).toMatchObject({ replacements: 2 });
  });

  it('keeps a byte order mark through an edit: only the text the card showed changes', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    await writeFile(path.join(workspace, 'bom.cs'), Buffer.concat([bom, Buffer.from('class A {}\n')]));
    await host.fs.editFile('bom.cs', { oldText: 'class A', newText: 'class B' });
    // Decoded as a reader decodes, the mark was dropped and the edit wrote the file back without it.
    expect(await readFile(path.join(workspace, 'bom.cs'))).toEqual(Buffer.concat([bom, Buffer.from('class B {}\n')]));
    expect(await host.fs.editFile('bom.cs', { oldText: 'class B {}', newText: 'class C {}' })).toMatchObject({ replacements: 1 });
  });
});

describe('fs: listing', () => {
  it('lists to a depth, honours .gitignore (with negation), skips .git and hidden names', async () => {
    await writeFile(path.join(workspace, '.gitignore'), 'dist/\n*.log\n!keep.log\n/rootonly.txt\n');
    await mkdir(path.join(workspace, 'dist'));
    await writeFile(path.join(workspace, 'dist/bundle.js'), 'x');
    await mkdir(path.join(workspace, 'src/nested'), { recursive: true });
    await writeFile(path.join(workspace, 'src/a.ts'), 'a');
    await writeFile(path.join(workspace, 'src/debug.log'), 'a');
    await writeFile(path.join(workspace, 'src/keep.log'), 'a');
    await writeFile(path.join(workspace, 'src/rootonly.txt'), 'a');
    await writeFile(path.join(workspace, 'rootonly.txt'), 'a');
    await writeFile(path.join(workspace, 'src/nested/.gitignore'), 'secret.ts\n');
    await writeFile(path.join(workspace, 'src/nested/secret.ts'), 'a');
    await writeFile(path.join(workspace, 'src/nested/open.ts'), 'a');
    await mkdir(path.join(workspace, '.git'));
    await symlink(outside, path.join(workspace, 'out-link'));
    const entries = await host.fs.listDirectory('.', { depth: 3 });
    const paths = entries.map((entry) => entry.path).sort();
    expect(paths).toEqual(['hello.txt', 'out-link', 'src', 'src/a.ts', 'src/keep.log', 'src/nested', 'src/nested/open.ts', 'src/rootonly.txt']);
    expect(entries.find((entry) => entry.path === 'out-link')?.kind).toBe('symlink');
    expect(entries.find((entry) => entry.path === 'hello.txt')).toMatchObject({ kind: 'file', bytes: 21 });
    const hidden = (await host.fs.listDirectory('.', { includeHidden: true })).map((entry) => entry.path);
    expect(hidden).toContain('.gitignore');
    expect(hidden).not.toContain('.git');
    expect((await host.fs.listDirectory('src/nested')).map((entry) => entry.path).sort()).toEqual(['src/nested/open.ts']);
  });
});
