import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicSync, type WriteFileAtomicOptions } from './write-file-atomic.js';

const root = mkdtempSync(join(tmpdir(), 'toolgate-atomic-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let folders = 0;
const freshFolder = (): string => {
  const folder = join(root, String(folders++));
  mkdirSync(folder);
  return folder;
};

const writers = [
  [
    'writeFileAtomicSync',
    async (file: string, data: string | Uint8Array, options?: WriteFileAtomicOptions) => {
      writeFileAtomicSync(file, data, options);
    },
  ],
  ['writeFileAtomic', writeFileAtomic],
] as const;

describe.each(writers)('%s', (_name, write) => {
  it('writes the whole content, private by default, and leaves nothing else in the folder', async () => {
    const folder = freshFolder();
    const file = join(folder, 'state.json');
    await write(file, 'first\n', { fsync: true });
    await write(file, new TextEncoder().encode('second\n'));
    expect(readFileSync(file, 'utf8')).toBe('second\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['state.json']);
  });

  it('keeps the mode it is given (narrowed by the umask only)', async () => {
    const file = join(freshFolder(), 'config.json');
    await write(file, '{}\n', { mode: 0o644 });
    expect(statSync(file).mode & 0o777).toBe(0o644 & ~process.umask());
  });

  it('replaces a link planted at the target instead of writing through it', async () => {
    const folder = freshFolder();
    const victim = join(folder, 'victim');
    writeFileSync(victim, 'untouched');
    const file = join(folder, 'anchor');
    symlinkSync(victim, file);
    await write(file, 'new');
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).isFile()).toBe(true);
  });

  it('removes its temporary file and keeps the target when the rename fails', async () => {
    const folder = freshFolder();
    const target = join(folder, 'taken');
    mkdirSync(join(target, 'inside'), { recursive: true });
    await expect(write(target, 'text')).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) });
    expect(readdirSync(folder)).toEqual(['taken']);
    expect(readdirSync(target)).toEqual(['inside']);
  });

  it('fails, without creating anything, when the folder does not exist', async () => {
    await expect(write(join(root, 'missing', 'file'), 'text')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

it('concurrent writes to one target in one process never share a temporary file; one of them wins whole', async () => {
  const folder = freshFolder();
  const file = join(folder, 'pins.json');
  const texts = Array.from({ length: 8 }, (_, index) => `${String(index).repeat(1000)}\n`);
  await Promise.all(texts.map((text) => writeFileAtomic(file, text)));
  expect(texts).toContain(readFileSync(file, 'utf8'));
  expect(readdirSync(folder)).toEqual(['pins.json']);
});
