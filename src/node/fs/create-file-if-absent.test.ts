import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileIfAbsentSync } from './create-file-if-absent.js';

const root = mkdtempSync(join(tmpdir(), 'toolgate-create-if-absent-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const freshFolder = (): string => mkdtempSync(join(root, 'case-'));

describe('createFileIfAbsentSync', () => {
  it('creates the file whole, private by default, and leaves nothing else in the folder', () => {
    const folder = freshFolder();
    const file = join(folder, 'key.pem');
    expect(createFileIfAbsentSync(file, 'secret\n')).toBe('created');
    expect(readFileSync(file, 'utf8')).toBe('secret\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(file).nlink).toBe(1);
    expect(readdirSync(folder)).toEqual(['key.pem']);
  });

  it('leaves an existing file as it is', () => {
    const folder = freshFolder();
    const file = join(folder, 'key.pem');
    writeFileSync(file, 'first\n', { mode: 0o644 });
    expect(createFileIfAbsentSync(file, new TextEncoder().encode('second\n'))).toBe('exists');
    expect(readFileSync(file, 'utf8')).toBe('first\n');
    expect(readdirSync(folder)).toEqual(['key.pem']);
  });

  it('never writes through a symbolic link at the name, to a file or to nowhere', () => {
    const folder = freshFolder();
    const outside = join(freshFolder(), 'victim');
    writeFileSync(outside, 'untouched\n');
    const linked = join(folder, 'linked');
    symlinkSync(outside, linked);
    expect(createFileIfAbsentSync(linked, 'planted\n')).toBe('exists');
    expect(readFileSync(outside, 'utf8')).toBe('untouched\n');

    const missing = join(freshFolder(), 'would-be-created');
    const dangling = join(folder, 'dangling');
    symlinkSync(missing, dangling);
    expect(createFileIfAbsentSync(dangling, 'planted\n')).toBe('exists');
    expect(existsSync(missing)).toBe(false);
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readdirSync(folder).sort()).toEqual(['dangling', 'linked']);
  });

  it('finds a folder at the name and writes nothing into it', () => {
    const folder = freshFolder();
    const file = join(folder, 'key.pem');
    mkdirSync(file);
    expect(createFileIfAbsentSync(file, 'secret\n')).toBe('exists');
    expect(readdirSync(file)).toEqual([]);
    expect(readdirSync(folder)).toEqual(['key.pem']);
  });

  it('throws when the folder is missing, and leaves no temporary file behind', () => {
    const folder = freshFolder();
    expect(() => createFileIfAbsentSync(join(folder, 'absent', 'key.pem'), 'secret\n')).toThrow(/ENOENT/);
    expect(readdirSync(folder)).toEqual([]);
  });
});
