import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createFsJail, isInside, resolveInWorkspace } from './fs-jail.js';

describe('isInside', () => {
  it('holds the root itself and what lies below it, never a sibling that merely shares its spelling', () => {
    expect(isInside('/work/app', '/work/app')).toBe(true);
    expect(isInside('/work/app', '/work/app/src/a.ts')).toBe(true);
    expect(isInside('/work/app', '/work/app/')).toBe(true);
    expect(isInside('/work/app', '/work/apple')).toBe(false);
    expect(isInside('/work/app', '/work/app.bak/a')).toBe(false);
    expect(isInside('/work/app', '/work/ap')).toBe(false);
    expect(isInside('/work/app', '/work')).toBe(false);
    expect(isInside('/work/app', '/other/work/app')).toBe(false);
  });

  it('a root that ends in a separator (the filesystem root) holds every absolute path', () => {
    expect(isInside('/', '/')).toBe(true);
    expect(isInside('/', '/etc/passwd')).toBe(true);
    expect(isInside('/', 'relative')).toBe(false);
  });
});

describe('resolveInWorkspace', () => {
  const spellings = [
    'notes/a.md',
    'a',
    '.env',
    '...',
    '..data/x',
    'a./b',
    'a/.b/c..',
    '.',
    '..',
    './a',
    'a/./b',
    'a/../b',
    'a/..',
    '../outside',
    'a/../../outside',
    'a//b',
    'a/',
    '/etc/passwd',
    '//etc',
    'a\\..\\b',
  ];

  it('is exactly path.resolve for every spelling, plain or not', () => {
    for (const workspace of ['/work/app', '/']) {
      for (const requested of spellings) expect(resolveInWorkspace(workspace, requested), `${workspace} + ${requested}`).toBe(path.resolve(workspace, requested));
    }
  });
});

describe('unreachablePaths', () => {
  it('are refused as private paths, the entry itself and all below it, and nothing beside them', () => {
    const jail = createFsJail({ workspace: tmpdir(), scope: 'full', protectedPaths: [], hostPaths: [], unreachablePaths: ['/proc'] });
    for (const entry of ['/proc', '/proc/1/environ', '/proc/self/mem', '/PROC/1/cmdline']) expect(jail.classify(entry), entry).toBe('protected_path');
    for (const entry of ['/procfs/a', '/etc/hostname', path.join(tmpdir(), 'proc')]) expect(jail.classify(entry), entry).toBe('open');
  });
});

describe('absolute protected entries', () => {
  it('an entry that is a link holds its own name and the file it leads to, and nothing beside them', () => {
    const workspace = mkdtempSync(path.join(tmpdir(), 'toolgate-jail-link-'));
    mkdirSync(path.join(workspace, 'config'));
    writeFileSync(path.join(workspace, 'config', 'team.json'), '{}');
    symlinkSync('team.json', path.join(workspace, 'config', 'claude.json'));
    const real = realpathSync(workspace);
    const jail = createFsJail({ workspace, scope: 'workspace-write', protectedPaths: [path.join(workspace, 'config', 'claude.json')], hostPaths: [] });
    expect(jail.classify(path.join(real, 'config', 'claude.json'))).toBe('protected');
    expect(jail.classify(path.join(real, 'config', 'team.json'))).toBe('protected');
    expect(jail.classify(path.join(real, 'config', 'other.json'))).toBe('open');
  });
});
