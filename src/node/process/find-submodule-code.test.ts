import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSubmoduleCode, UnheldSubmoduleError } from './find-submodule-code.js';

const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function workTree(): string {
  const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-submodule-code-')));
  made.push(folder);
  mkdirSync(path.join(folder, '.git', 'modules', 'libs', 'sub'), { recursive: true });
  return folder;
}

describe('findSubmoduleCode', () => {
  it('holds the .git file of a checked-out submodule and the whole git folder it names, and gives that repository to walk next', () => {
    const tree = workTree();
    mkdirSync(path.join(tree, 'libs', 'sub'), { recursive: true });
    writeFileSync(path.join(tree, 'libs', 'sub', '.git'), 'gitdir: ../../.git/modules/libs/sub\n');
    const gitDir = path.join(tree, '.git', 'modules', 'libs', 'sub');
    writeFileSync(path.join(gitDir, 'config'), '[core]\n');
    expect(findSubmoduleCode(tree, 'libs/sub')).toEqual({ readOnly: [path.join(tree, 'libs', 'sub', '.git'), gitDir], populated: { workTree: path.join(tree, 'libs', 'sub'), gitDir } });
  });

  it('holds a .git folder in the submodule (the older layout) whole', () => {
    const tree = workTree();
    mkdirSync(path.join(tree, 'old', '.git'), { recursive: true });
    const gitDir = path.join(tree, 'old', '.git');
    expect(findSubmoduleCode(tree, 'old')).toEqual({ readOnly: [gitDir], populated: { workTree: path.join(tree, 'old'), gitDir } });
  });

  it('holds an unpopulated submodule\'s folder read-only, and makes a missing one (and the folders above it) as git would leave it', () => {
    const tree = workTree();
    mkdirSync(path.join(tree, 'empty'));
    expect(findSubmoduleCode(tree, 'empty')).toEqual({ readOnly: [path.join(tree, 'empty')] });
    expect(findSubmoduleCode(tree, 'gone/deep')).toEqual({ readOnly: [path.join(tree, 'gone', 'deep')] });
  });

  it.each([
    ['a link on the way', (tree: string) => symlinkSync(path.join(tree, 'real'), path.join(tree, 'linked')), 'linked/sub', 'lies at or beneath a link (linked)'],
    ['a link in its place', (tree: string) => symlinkSync(path.join(tree, 'real'), path.join(tree, 'linked')), 'linked', 'lies at or beneath a link (linked)'],
    ['a file on the way', (tree: string) => writeFileSync(path.join(tree, 'file'), ''), 'file/sub', 'lies at or beneath a file (file)'],
    ['a .git that is a link', (tree: string) => symlinkSync(path.join(tree, '.git'), path.join(tree, 'real', '.git')), 'real', 'neither a folder nor a .git file'],
    ['a .git file naming nothing', (tree: string) => writeFileSync(path.join(tree, 'real', '.git'), 'not a gitfile\n'), 'real', 'names no git folder'],
    ['a .git file naming a folder that is not there', (tree: string) => writeFileSync(path.join(tree, 'real', '.git'), 'gitdir: ../.git/modules/none\n'), 'real', 'a git folder that is not there'],
    ['a .git file naming a file', (tree: string) => writeFileSync(path.join(tree, 'real', '.git'), 'gitdir: ../notes\n'), 'real', 'something other than a folder'],
    ['an entry climbing out', () => undefined, '../outside', 'names no folder'],
    ['an entry inside a .git', () => undefined, 'a/.git/b', 'names no folder'],
  ])('refuses a submodule it cannot hold in place: %s', (_label, arrange, entry, why) => {
    const tree = workTree();
    mkdirSync(path.join(tree, 'real'));
    writeFileSync(path.join(tree, 'notes'), '');
    arrange(tree);
    expect(() => findSubmoduleCode(tree, entry)).toThrow(UnheldSubmoduleError);
    expect(() => findSubmoduleCode(tree, entry)).toThrow(why);
  });
});
