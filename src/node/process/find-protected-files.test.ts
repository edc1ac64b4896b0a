import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, link, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsJail } from '../fs/fs-jail.js';
import { createProtectedFileFinder } from './find-protected-files.js';

describe('createProtectedFileFinder: what a sandboxed command must see empty', () => {
  let base = '';
  let workspace = '';
  const jail = (protectedPaths: readonly string[] = []) => createFsJail({ workspace, scope: 'workspace-write', protectedPaths, hostPaths: [] });
  const relative = (paths: readonly string[]): string[] => paths.map((entry) => (entry.startsWith(workspace) ? path.relative(workspace, entry) : entry)).sort();

  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'toolgate-mask-'));
    workspace = path.join(base, 'ws');
    await mkdir(path.join(workspace, 'config'), { recursive: true });
    await mkdir(path.join(workspace, 'src', 'deep'), { recursive: true });
    await mkdir(path.join(workspace, '.git', 'refs'), { recursive: true });
    await mkdir(path.join(workspace, '.ssh'));
    await mkdir(path.join(base, 'home', '.aws'), { recursive: true });
    for (const [name, content] of Object.entries({
      '.env': 'S=1',
      '.ENV.local': 'S=2',
      'config/.env.production': 'S=3',
      'src/deep/id_ed25519': 'KEY',
      'src/deep/server.PEM': 'PEM',
      '.ssh/known_hosts': 'x',
      '.git/config': '[core]',
      '.git/refs/.env': 'inside the repository',
      'notes.md': 'plain',
      'src/app.ts': 'code',
      'secrets.yaml': 'user protected',
    })) {
      await writeFile(path.join(workspace, name), content);
    }
    await writeFile(path.join(base, 'home', '.aws', 'credentials'), 'AWS');
    await link(path.join(workspace, '.env'), path.join(workspace, 'src', 'backup.txt'));
    await symlink(path.join(base, 'home', '.aws'), path.join(workspace, 'aws'));
    await symlink('.env', path.join(workspace, 'settings.txt'));
    await symlink(path.join(base, 'missing'), path.join(workspace, 'dangling'));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it('finds glob-protected files at any depth and in any case, a protected folder whole, a hard link to a protected file, and a protected place a link leads to outside', () => {
    const found = createProtectedFileFinder(jail())();
    expect(found.kind).toBe('found');
    if (found.kind !== 'found') return;
    expect(relative(found.paths)).toEqual(
      [path.join(base, 'home', '.aws'), '.ENV.local', '.env', '.ssh', 'config/.env.production', 'src/backup.txt', 'src/deep/id_ed25519', 'src/deep/server.PEM'].sort(),
    );
  });

  it('adds the user protectedPaths through the same classifier, and leaves repository internals to git', () => {
    const found = createProtectedFileFinder(jail(['secrets.yaml']))();
    expect(found.kind === 'found' && relative(found.paths)).toContain('secrets.yaml');
    expect(found.kind === 'found' && found.paths.some((entry) => entry.includes(`${path.sep}.git${path.sep}`) || entry.endsWith('.git'))).toBe(false);
  });

  it('leaves a protected file the policy lets be read visible, but masks a readable name that is a hard link to a masked secret', () => {
    const readable = (absolute: string): boolean => ['.ENV.local', 'src/backup.txt', '.ssh'].includes(path.relative(workspace, absolute));
    const found = createProtectedFileFinder(jail(), readable)();
    expect(found.kind).toBe('found');
    if (found.kind !== 'found') return;
    // `.ENV.local` is exempt; `src/backup.txt` is an ordinary name hard-linked to `.env` (masked regardless); `.ssh` is a folder, never exempt.
    expect(relative(found.paths)).not.toContain('.ENV.local');
    expect(relative(found.paths)).toEqual(expect.arrayContaining(['.env', '.ssh', 'src/backup.txt']));
  });

  it('finds a secret created after the walk last ran', async () => {
    await writeFile(path.join(workspace, 'src', 'deep', '.env.late'), 'LATE');
    const found = createProtectedFileFinder(jail())();
    expect(found.kind === 'found' && relative(found.paths)).toContain('src/deep/.env.late');
    await rm(path.join(workspace, 'src', 'deep', '.env.late'));
  });

  it('walking again with the same finder sees what changed since: a secret added, a folder removed, a link retargeted', async () => {
    const find = createProtectedFileFinder(jail());
    const paths = (): string[] => {
      const found = find();
      return found.kind === 'found' ? relative(found.paths) : [];
    };
    expect(paths()).toContain('.env');
    await mkdir(path.join(workspace, 'later', 'deeper'), { recursive: true });
    await writeFile(path.join(workspace, 'later', 'deeper', 'id_rsa'), 'LATE KEY');
    await writeFile(path.join(workspace, 'src', 'deep', '.env.test'), 'LATE');
    expect(paths()).toEqual(expect.arrayContaining(['later/deeper/id_rsa', 'src/deep/.env.test']));
    await rm(path.join(workspace, 'later'), { recursive: true });
    await rm(path.join(workspace, 'src', 'deep', '.env.test'));
    expect(paths().filter((entry) => entry.startsWith('later') || entry.endsWith('.env.test'))).toEqual([]);
    await rm(path.join(workspace, 'aws'));
    await symlink(path.join(base, 'home', '.aws', 'credentials'), path.join(workspace, 'aws'));
    expect(paths()).toContain(path.join(base, 'home', '.aws', 'credentials'));
    await rm(path.join(workspace, 'aws'));
    await symlink(path.join(base, 'home', '.aws'), path.join(workspace, 'aws'));
  });

  it('walks a folder outside the workspace that a link leads to, so what it holds is masked too; a link named .git is followed unless it leads to a repository', async () => {
    const linked = path.join(base, 'ws-links');
    const home = path.join(base, 'linked-home');
    await mkdir(path.join(home, '.ssh'), { recursive: true });
    await mkdir(path.join(home, 'project', '.git'), { recursive: true });
    await writeFile(path.join(home, '.ssh', 'id_rsa'), 'KEY');
    await writeFile(path.join(home, 'project', '.env'), 'S=outside');
    await mkdir(path.join(linked, 'x', 'y'), { recursive: true });
    await symlink(home, path.join(linked, 'home'));
    await symlink(path.join(home, '.ssh'), path.join(linked, 'x', '.git'));
    await symlink(path.join(home, 'project', '.git'), path.join(linked, 'x', 'y', '.git'));
    // A link back into the workspace and a loop are walked once.
    await symlink(linked, path.join(home, 'project', 'back'));
    const found = createProtectedFileFinder(createFsJail({ workspace: linked, scope: 'workspace-write', protectedPaths: [], hostPaths: [] }))();
    expect(found.kind === 'found' && [...found.paths].sort()).toEqual([path.join(home, '.ssh'), path.join(home, 'project', '.env')]);
    await symlink('/', path.join(linked, 'root'));
    expect(createProtectedFileFinder(createFsJail({ workspace: linked, scope: 'workspace-write', protectedPaths: [], hostPaths: [] }))({ entries: 1000 })).toEqual({ kind: 'over_limit', bound: 'entries' });
  });

  it("gives the owner's read and search back to a folder of the workspace it cannot list, and lists it: a command could hide a repository there", async (context) => {
    if (process.getuid?.() === 0) {
      context.skip('root lists every folder whatever its mode');
      return;
    }
    const locked = path.join(base, 'ws-locked');
    await mkdir(path.join(locked, 'config', 'repo', '.git'), { recursive: true });
    await writeFile(path.join(locked, 'config', '.env'), 'S=locked');
    await chmod(path.join(locked, 'config'), 0o311);
    const found = createProtectedFileFinder(createFsJail({ workspace: locked, scope: 'workspace-write', protectedPaths: [], hostPaths: [] }))();
    expect((await stat(path.join(locked, 'config'))).mode & 0o777).toBe(0o711);
    expect(found).toMatchObject({ kind: 'found', paths: [path.join(locked, 'config', '.env')], repositories: [path.join(locked, 'config', 'repo', '.git')] });
  });

  it('refuses a folder holding a name that is not UTF-8: a path string cannot name it, so it could be neither classified nor masked', async () => {
    const bytes = path.join(base, 'ws-bytes');
    await mkdir(path.join(bytes, 'plain\uFFFD'), { recursive: true });
    await writeFile(path.join(bytes, 'plain\uFFFD', 'notes.md'), 'a name that merely holds U+FFFD is read as any other');
    const finder = createProtectedFileFinder(createFsJail({ workspace: bytes, scope: 'workspace-write', protectedPaths: [], hostPaths: [] }));
    expect(finder()).toEqual({ kind: 'found', paths: [], entries: 2, repositories: [] });
    const folder = Buffer.concat([Buffer.from(`${bytes}/d`), Buffer.from([0xff])]);
    mkdirSync(folder);
    writeFileSync(Buffer.concat([folder, Buffer.from('/.env')]), 'S=bytes');
    expect(finder()).toEqual({ kind: 'undecodable_name', folder: bytes });
    rmSync(folder, { recursive: true });
    writeFileSync(Buffer.concat([Buffer.from(`${bytes}/plain\uFFFD/.env`), Buffer.from([0xfe])]), 'S=bytes');
    expect(finder()).toEqual({ kind: 'undecodable_name', folder: path.join(bytes, 'plain\uFFFD') });
  });

  it("names every nested repository's .git (a folder, a gitdir file, a link), not the workspace's own nor one outside it, and enters none", async () => {
    const nested = path.join(base, 'ws-nested');
    const outside = path.join(base, 'outside-nested');
    for (const folder of ['.git/modules/a', 'a/.git/hooks', 'deep/b', 'c', 'd', 'e'].map((entry) => path.join(nested, entry))) await mkdir(folder, { recursive: true });
    await mkdir(path.join(outside, '.git'), { recursive: true });
    await writeFile(path.join(nested, 'deep', 'b', '.git'), 'gitdir: ../../.git/modules/a\n');
    await symlink(path.join(nested, 'a', '.git'), path.join(nested, 'c', '.git'));
    await symlink(outside, path.join(nested, 'd', 'outside'));
    await writeFile(path.join(nested, 'a', '.git', 'hooks', '.env'), 'not walked');
    const found = createProtectedFileFinder(createFsJail({ workspace: nested, scope: 'workspace-write', protectedPaths: [], hostPaths: [] }))();
    expect(found).toMatchObject({ kind: 'found', paths: [], repositories: ['a/.git', 'c/.git', 'deep/b/.git'].map((entry) => path.join(nested, entry)) });
  });

  it('answers over_limit, never a partial list, past its entry or time bound', () => {
    expect(createProtectedFileFinder(jail())({ entries: 5 })).toEqual({ kind: 'over_limit', bound: 'entries' });
    expect(createProtectedFileFinder(jail())({ milliseconds: 0 })).toEqual({ kind: 'over_limit', bound: 'milliseconds' });
  });
});
