import { realpathSync } from 'node:fs';
import { link, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResolvedPath } from '../../core/internal.js';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost, NodeHostOptions } from '../node-host-types.js';
import { refusalReason } from '../__fixtures__/refusal-reason.js';

let base: string;
let workspace: string;
let host: NodeHost;

function makeHost(options: Partial<NodeHostOptions> = {}): NodeHost {
  return createNodeHost({ workspace, spillDir: path.join(base, `spill-${Math.random().toString(36).slice(2)}`), sandbox: 'off', ...options });
}

/** The target as the engine would hand it on after resolution (and, for a protected one, after a person approved it). */
function resolved(requested: string, on: NodeHost = host): ResolvedPath {
  const [file] = on.resolve({ tool: 'write_file', access: 'write', paths: [requested] }).files;
  if (file === undefined) throw new Error('no answer');
  return file;
}

const read = (relative: string): Promise<string> => readFile(path.join(workspace, relative), 'utf8');

beforeEach(async () => {
  base = realpathSync(await mkdtemp(path.join(tmpdir(), 'toolgate-recheck-')));
  workspace = path.join(base, 'ws');
  await mkdir(path.join(workspace, 'notes'), { recursive: true });
  await mkdir(path.join(workspace, 'other'));
  await writeFile(path.join(workspace, 'notes', 'a.md'), 'original\n');
  await writeFile(path.join(workspace, 'other', 'a.md'), 'other\n');
  await mkdir(path.join(workspace, '.git'));
  await writeFile(path.join(workspace, '.git', 'config'), '[core]\n');
  await writeFile(path.join(workspace, '.env'), 'TOKEN=1\n');
  host = makeHost();
});

afterEach(async () => {
  await host.close();
  await rm(base, { recursive: true, force: true });
});

describe('re-check at execution: what runs is what was resolved', () => {
  it('refuses a symlink swapped in after resolution, for read, write, edit and list, and touches nothing', async () => {
    const file = resolved('notes/a.md');
    const folder = resolved('notes');
    await rename(path.join(workspace, 'notes'), path.join(workspace, 'notes-old'));
    await symlink('other', path.join(workspace, 'notes'));
    expect(await refusalReason(host.fs.readFile('notes/a.md', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/a.md', 'pwned', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.editFile('notes/a.md', { oldText: 'other', newText: 'pwned' }, { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.listDirectory('notes', { expected: folder }))).toBe('target_changed');
    expect(await read('other/a.md')).toBe('other\n');
    expect(await read('notes-old/a.md')).toBe('original\n');
  });

  it('refuses a file swapped for a link to a protected file after resolution (never silently followed)', async () => {
    const file = resolved('notes/a.md');
    await rm(path.join(workspace, 'notes', 'a.md'));
    await symlink('../.env', path.join(workspace, 'notes', 'a.md'));
    expect(await refusalReason(host.fs.readFile('notes/a.md', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/a.md', 'TOKEN=stolen', { expected: file }))).toBe('target_changed');
    expect(await read('.env')).toBe('TOKEN=1\n');
  });

  it('refuses a file replaced by a rename over it after resolution, and leaves the replacement as it is', async () => {
    const file = resolved('notes/a.md');
    await writeFile(path.join(workspace, 'notes', 'planted.md'), 'planted\n');
    await rename(path.join(workspace, 'notes', 'planted.md'), path.join(workspace, 'notes', 'a.md'));
    expect(await refusalReason(host.fs.readFile('notes/a.md', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/a.md', 'mine', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.editFile('notes/a.md', { oldText: 'planted', newText: 'mine' }, { expected: file }))).toBe('target_changed');
    expect(await read('notes/a.md')).toBe('planted\n');
    // Resolved again, the same calls go through: only a change is refused.
    expect((await host.fs.readFile('notes/a.md', { expected: resolved('notes/a.md') })).content).toBe('planted\n');
    expect((await host.fs.writeFile('notes/a.md', 'mine', { expected: resolved('notes/a.md') })).created).toBe(false);
  });

  it('refuses a write that was to create a file when the file exists at execution, and leaves that file alone', async () => {
    const fresh = resolved('notes/new.md');
    const nested = resolved('notes/deep/er/new.md');
    expect(fresh.created).toBe(true);
    await writeFile(path.join(workspace, 'notes', 'new.md'), 'someone else\n');
    expect(await refusalReason(host.fs.writeFile('notes/new.md', 'mine', { expected: fresh }))).toBe('target_changed');
    expect(await read('notes/new.md')).toBe('someone else\n');
    // A folder that appeared where the new file's folders were missing is a change too; nothing is written there.
    await mkdir(path.join(workspace, 'notes', 'deep'));
    expect(await refusalReason(host.fs.writeFile('notes/deep/er/new.md', 'mine', { expected: nested }))).toBe('target_changed');
    expect(await readdir(path.join(workspace, 'notes', 'deep'))).toEqual([]);
  });

  it('refuses a file that vanished after resolution, and an expected target that names another real path', async () => {
    const file = resolved('notes/a.md');
    await rm(path.join(workspace, 'notes', 'a.md'));
    expect(await refusalReason(host.fs.writeFile('notes/a.md', 'x', { expected: file }))).toBe('target_changed');
    await expect(readFile(path.join(workspace, 'notes', 'a.md'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await refusalReason(host.fs.readFile('other/a.md', { expected: resolved('notes') }))).toBe('target_changed');
  });

  it('refuses a folder replaced by another of the same name that holds a file of the same name, and writes nothing there', async () => {
    const file = resolved('notes/a.md');
    await rename(path.join(workspace, 'notes'), path.join(workspace, 'notes-old'));
    await mkdir(path.join(workspace, 'notes'));
    await writeFile(path.join(workspace, 'notes', 'a.md'), 'planted\n');
    expect(await refusalReason(host.fs.readFile('notes/a.md', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/a.md', 'mine', { expected: file }))).toBe('target_changed');
    expect(await read('notes/a.md')).toBe('planted\n');
    expect(await read('notes-old/a.md')).toBe('original\n');
  });

  it('refuses a new file whose folder was replaced by an empty one of the same name, and creates nothing', async () => {
    const fresh = resolved('notes/new.md');
    const nested = resolved('notes/deep/new.md');
    await rename(path.join(workspace, 'notes'), path.join(workspace, 'notes-old'));
    await mkdir(path.join(workspace, 'notes'));
    expect(await refusalReason(host.fs.writeFile('notes/new.md', 'mine', { expected: fresh }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/deep/new.md', 'mine', { expected: nested }))).toBe('target_changed');
    expect(await readdir(path.join(workspace, 'notes'))).toEqual([]);
    expect((await readdir(path.join(workspace, 'notes-old'))).sort()).toEqual(['a.md']);
  });

  it('refuses a folder swapped for a link to itself moved aside (the same file below it): nothing is read or written through the link', async () => {
    const file = resolved('notes/a.md');
    const fresh = resolved('notes/new.md');
    await rename(path.join(workspace, 'notes'), path.join(workspace, 'moved'));
    await symlink('moved', path.join(workspace, 'notes'));
    const refused = ['target_changed', 'symlink_refused'];
    expect(refused).toContain(await refusalReason(host.fs.readFile('notes/a.md', { expected: file })));
    expect(refused).toContain(await refusalReason(host.fs.writeFile('notes/a.md', 'mine', { expected: file })));
    expect(refused).toContain(await refusalReason(host.fs.writeFile('notes/new.md', 'mine', { expected: fresh })));
    expect(await read('moved/a.md')).toBe('original\n');
    expect((await readdir(path.join(workspace, 'moved'))).sort()).toEqual(['a.md']);
  });

  it('performs an unchanged resolved target, a new file included, and needs no expected target at all', async () => {
    expect((await host.fs.readFile('notes/a.md', { expected: resolved('notes/a.md') })).content).toBe('original\n');
    expect((await host.fs.writeFile('notes/b/new.md', 'new', { expected: resolved('notes/b/new.md') })).created).toBe(true);
    expect((await host.fs.editFile('notes/a.md', { oldText: 'original', newText: 'edited' }, { expected: resolved('notes/a.md') })).replacements).toBe(1);
    expect((await host.fs.listDirectory('notes', { expected: resolved('notes') })).map((entry) => entry.path).sort()).toEqual(['notes/a.md', 'notes/b']);
    expect((await host.fs.readFile('notes/b/new.md')).content).toBe('new');
  });
});

describe('protected unless approved: the real path decides', () => {
  it('refuses a read or write of .env and .git/config without an approved target, and performs it with one', async () => {
    expect(await refusalReason(host.fs.readFile('.env'))).toBe('protected_path');
    expect(await refusalReason(host.fs.readFile('.GIT/config'))).toBe('protected_path');
    expect(await refusalReason(host.fs.writeFile('.git/config', '[core]\n\tfsmonitor = x\n'))).toBe('protected_path');
    expect(await refusalReason(host.fs.editFile('.env', { oldText: '1', newText: '2' }))).toBe('protected_path');
    expect(await refusalReason(host.fs.listDirectory('.git'))).toBe('protected_path');
    expect(await read('.git/config')).toBe('[core]\n');

    const env = resolved('.env');
    expect(env).toMatchObject({ real: '.env', protected: true });
    expect((await host.fs.readFile('.env', { expected: env })).content).toBe('TOKEN=1\n');
    expect((await host.fs.writeFile('.git/config', '[core]\n\tbare = false\n', { expected: resolved('.git/config') })).created).toBe(false);
    expect(await read('.git/config')).toBe('[core]\n\tbare = false\n');
    expect((await host.fs.editFile('.env', { oldText: '1', newText: '2' }, { expected: resolved('.env') })).replacements).toBe(1);
    // The approval named the directory, not what is in it: its protected entries stay out of the listing.
    expect(await host.fs.listDirectory('.git', { expected: resolved('.git') })).toEqual([]);
  });

  it('refuses through links (vendor -> .git, envlink -> .env) without an approved target, and with one that named the real path performs it', async () => {
    await symlink('.git', path.join(workspace, 'vendor'));
    await symlink('.env', path.join(workspace, 'envlink'));
    expect(await refusalReason(host.fs.writeFile('vendor/config', '[core]\n\tfsmonitor = "touch pwned"\n'))).toBe('protected_path');
    expect(await refusalReason(host.fs.readFile('envlink'))).toBe('protected_path');
    expect(await refusalReason(host.fs.writeFile('envlink', 'TOKEN=stolen'))).toBe('protected_path');
    expect(await read('.git/config')).toBe('[core]\n');
    expect(await read('.env')).toBe('TOKEN=1\n');

    const vendor = resolved('vendor/config');
    expect(vendor).toMatchObject({ real: '.git/config', protected: true, linkTraversal: true });
    expect((await host.fs.writeFile('vendor/config', '[core]\n\tbare = true\n', { expected: vendor })).bytes).toBeGreaterThan(0);
    expect(await read('.git/config')).toBe('[core]\n\tbare = true\n');
    expect((await host.fs.readFile('envlink', { expected: resolved('envlink') })).content).toBe('TOKEN=1\n');
  });

  it('accepts an approval only for the real path it named: another protected file, or an unprotected account of this one, is refused', async () => {
    const lexical = (requested: string, protectedFlag: boolean): ResolvedPath => ({ requested, path: requested, real: requested, protected: protectedFlag, linkTraversal: false, outside: false, created: false, hardLinked: false });
    expect(await refusalReason(host.fs.readFile('.git/config', { expected: lexical('.env', true) }))).toBe('protected_path');
    expect(await refusalReason(host.fs.readFile('.git/config', { expected: resolved('.env') }))).toBe('target_changed');
    expect(await refusalReason(host.fs.readFile('.env', { expected: { ...resolved('.env'), protected: false } }))).toBe('protected_path');
    // An engine without a resolving host hands on the spelling: it binds when it names the real path.
    expect((await host.fs.readFile('.env', { expected: lexical('.env', true) })).content).toBe('TOKEN=1\n');
    await symlink('.env', path.join(workspace, 'envlink'));
    expect(await refusalReason(host.fs.readFile('envlink', { expected: lexical('envlink', false) }))).toBe('protected_path');
  });

  it('leaves protected entries out of a listing: .env files, key material, a nested repository', async () => {
    await mkdir(path.join(workspace, 'certs'));
    await writeFile(path.join(workspace, 'certs', 'server.pem'), 'PEM');
    await writeFile(path.join(workspace, 'certs', 'README.md'), 'certs');
    await writeFile(path.join(workspace, 'id_ed25519'), 'KEY');
    await writeFile(path.join(workspace, '.env.local'), 'X=1');
    await mkdir(path.join(workspace, 'vendor', 'lib', '.git'), { recursive: true });
    const listed = (await host.fs.listDirectory('.', { depth: 4, includeHidden: true })).map((entry) => entry.path);
    expect(listed).toContain('certs/README.md');
    for (const hidden of ['certs/server.pem', 'id_ed25519', '.env.local', '.env', 'vendor/lib/.git']) expect(listed).not.toContain(hidden);
  });

  it('keeps the host stores and private paths refused even when the approved target says protected', async () => {
    await mkdir(path.join(workspace, 'state'));
    await writeFile(path.join(workspace, 'state', 'journal.db'), 'JOURNAL');
    await writeFile(path.join(workspace, 'secrets.json'), '{"k":"v"}');
    const guarded = makeHost({ privatePaths: ['state'], secrets: { get: () => undefined, path: path.join(workspace, 'secrets.json') } });
    // The resolver refuses them before anyone could approve; an expected target that names one anyway (a caller
    // that built it by hand) is refused again at execution.
    expect(() => resolved('state/journal.db', guarded)).toThrow(/protected/);
    const claimed = (requested: string): ResolvedPath => ({ requested, path: requested, real: requested, protected: true, linkTraversal: false, outside: false, created: false, hardLinked: false });
    expect(await refusalReason(guarded.fs.readFile('state/journal.db', { expected: claimed('state/journal.db') }))).toBe('protected_path');
    expect(await refusalReason(guarded.fs.writeFile('STATE/journal.db', 'x', { expected: claimed('STATE/journal.db') }))).toBe('protected_path');
    expect(await refusalReason(guarded.fs.readFile('secrets.json', { expected: claimed('secrets.json') }))).toBe('secret_store');
    expect(await read('state/journal.db')).toBe('JOURNAL');
    await guarded.close();
  });
});

describe('re-check at the open: a target taken as resolved is confirmed by what the open meets', () => {
  it('refuses a file replaced by a hard link to a protected file after resolution (same kind, another inode), for read, write and edit', async () => {
    const file = resolved('notes/a.md');
    await rm(path.join(workspace, 'notes', 'a.md'));
    await link(path.join(workspace, '.env'), path.join(workspace, 'notes', 'a.md'));
    expect(await refusalReason(host.fs.readFile('notes/a.md', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/a.md', 'TOKEN=stolen', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.editFile('notes/a.md', { oldText: 'TOKEN=1', newText: 'TOKEN=stolen' }, { expected: file }))).toBe('target_changed');
    expect(await read('.env')).toBe('TOKEN=1\n');
  });

  it('refuses a grandparent folder swapped for a link to itself moved aside (the same inodes below it): nothing is read, written or created through the link', async () => {
    await mkdir(path.join(workspace, 'notes', 'sub'));
    await writeFile(path.join(workspace, 'notes', 'sub', 'a.md'), 'deep\n');
    const file = resolved('notes/sub/a.md');
    const fresh = resolved('notes/sub/new.md');
    const nested = resolved('notes/sub/deeper/new.md');
    const folder = resolved('notes/sub');
    await rename(path.join(workspace, 'notes'), path.join(workspace, 'moved'));
    await symlink('moved', path.join(workspace, 'notes'));
    expect(await refusalReason(host.fs.readFile('notes/sub/a.md', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/sub/a.md', 'mine', { expected: file }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/sub/new.md', 'mine', { expected: fresh }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/sub/deeper/new.md', 'mine', { expected: nested }))).toBe('target_changed');
    expect(await refusalReason(host.fs.listDirectory('notes/sub', { expected: folder }))).toBe('target_changed');
    expect(await read('moved/sub/a.md')).toBe('deep\n');
    expect((await readdir(path.join(workspace, 'moved', 'sub'))).sort()).toEqual(['a.md']);
  });

  it("refuses a new file whose folder was swapped for a link to another folder, or replaced by a file, and creates nothing", async () => {
    const fresh = resolved('notes/new.md');
    const nested = resolved('notes/deep/new.md');
    await rename(path.join(workspace, 'notes'), path.join(workspace, 'notes-old'));
    await symlink('other', path.join(workspace, 'notes'));
    expect(await refusalReason(host.fs.writeFile('notes/new.md', 'mine', { expected: fresh }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/deep/new.md', 'mine', { expected: nested }))).toBe('target_changed');
    await rm(path.join(workspace, 'notes'));
    await writeFile(path.join(workspace, 'notes'), 'a file now\n');
    expect(await refusalReason(host.fs.writeFile('notes/new.md', 'mine', { expected: fresh }))).toBe('target_changed');
    expect(await refusalReason(host.fs.writeFile('notes/deep/new.md', 'mine', { expected: nested }))).toBe('target_changed');
    expect((await readdir(path.join(workspace, 'other'))).sort()).toEqual(['a.md']);
    expect(await read('notes')).toBe('a file now\n');
  });

  it('refuses a folder resolved for a listing or a read that is now a file, or gone', async () => {
    const folder = resolved('notes');
    const file = resolved('notes/a.md');
    await rename(path.join(workspace, 'notes'), path.join(workspace, 'notes-old'));
    expect(await refusalReason(host.fs.listDirectory('notes', { expected: folder }))).toBe('target_changed');
    expect(await refusalReason(host.fs.readFile('notes/a.md', { expected: file }))).toBe('target_changed');
    await writeFile(path.join(workspace, 'notes'), 'a file now\n');
    expect(await refusalReason(host.fs.listDirectory('notes', { expected: folder }))).toBe('target_changed');
    expect(await refusalReason(host.fs.readFile('notes/a.md', { expected: file }))).toBe('target_changed');
  });
});
