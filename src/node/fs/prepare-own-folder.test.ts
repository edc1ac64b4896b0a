import { chmodSync, mkdirSync, mkdtempSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareOwnFolder } from './prepare-own-folder.js';

const base = (): string => realpathSync(mkdtempSync(join(tmpdir(), 'own-folder-')));

describe('prepareOwnFolder', () => {
  it('makes a missing folder with mode 0700, its parents only when asked', () => {
    const root = base();
    expect(prepareOwnFolder(join(root, 'a'))).toBeUndefined();
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(() => prepareOwnFolder(join(root, 'b', 'c'))).toThrow(/ENOENT/);
    expect(prepareOwnFolder(join(root, 'b', 'c'), true)).toBeUndefined();
  });

  it('refuses a link to a folder, a dangling link and a file, and makes nothing where a link leads', () => {
    const root = base();
    mkdirSync(join(root, 'target'));
    symlinkSync(join(root, 'target'), join(root, 'link'));
    symlinkSync(join(root, 'missing'), join(root, 'dangling'));
    writeFileSync(join(root, 'file'), '');
    for (const name of ['link', 'dangling', 'file']) expect(prepareOwnFolder(join(root, name))).toBe('is not a folder (a symbolic link or a file)');
    expect(() => statSync(join(root, 'missing'))).toThrow(/ENOENT/);
  });

  it('refuses a folder every user may write, and keeps one only its group may', () => {
    const root = base();
    mkdirSync(join(root, 'open'));
    chmodSync(join(root, 'open'), 0o777);
    expect(prepareOwnFolder(join(root, 'open'))).toBe('is writable by every user');
    mkdirSync(join(root, 'group'));
    chmodSync(join(root, 'group'), 0o770);
    expect(prepareOwnFolder(join(root, 'group'))).toBeUndefined();
  });
});
