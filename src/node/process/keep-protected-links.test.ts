import { existsSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FoundProtectedFiles } from './find-protected-files.js';
import { createLinkKeeper, keptLinksOf, restoreKeptLinks } from './keep-protected-links.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A workspace where `.env` links to `config/dev.secrets`, and a hook links through the folder link `tools` to `shared/tools/hooks/pre-commit`. */
function workspace(): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-kept-links-')));
  made.push(root);
  for (const folder of ['config', 'shared/tools/hooks', '.git/hooks']) mkdirSync(path.join(root, folder), { recursive: true });
  writeFileSync(path.join(root, 'config/dev.secrets'), 'x\n');
  writeFileSync(path.join(root, 'shared/tools/hooks/pre-commit'), '#!/bin/sh\n');
  symlinkSync('config/dev.secrets', path.join(root, '.env'));
  symlinkSync('shared/tools', path.join(root, 'tools'));
  symlinkSync('../../tools/hooks/pre-commit', path.join(root, '.git/hooks/pre-commit'));
  return root;
}

const walked = (paths: string[]): FoundProtectedFiles => ({ kind: 'found', paths, entries: 0, repositories: [] });

describe('keptLinksOf', () => {
  it('keeps the protected links, the repository code that is a link, and the links on the way to where they lead', () => {
    const root = workspace();
    const kept = keptLinksOf(root, walked([path.join(root, '.env'), path.join(root, 'config')]));
    expect(Object.fromEntries(kept.links)).toEqual({
      [path.join(root, '.env')]: 'config/dev.secrets',
      [path.join(root, '.git/hooks/pre-commit')]: '../../tools/hooks/pre-commit',
      [path.join(root, 'tools')]: 'shared/tools',
    });
    expect(kept.unmade).toEqual([]);
  });

  it('names the protected links whose way ends, in the workspace, on nothing yet', () => {
    const root = workspace();
    symlinkSync('../../build/hooks/pre-push', path.join(root, '.git/hooks/pre-push'));
    symlinkSync('/nonexistent-toolgate-outside/x', path.join(root, '.env.outside'));
    const kept = keptLinksOf(root, walked([path.join(root, '.env'), path.join(root, '.env.outside')]));
    expect(kept.unmade).toEqual([path.join(root, '.git/hooks/pre-push')]);
  });
  it('keeps a protected link however many protected files the walk found, and ends on a loop of links', () => {
    const root = workspace();
    symlinkSync('loop-b', path.join(root, 'loop-a'));
    symlinkSync('loop-a', path.join(root, 'loop-b'));
    symlinkSync('loop-a/x', path.join(root, '.env.local'));
    const files = Array.from({ length: 2000 }, (_, index) => path.join(root, `key-${index}.pem`));
    const kept = keptLinksOf(root, walked([path.join(root, '.env'), ...files, path.join(root, '.env.local')]));
    expect(kept.links.get(path.join(root, '.env'))).toBe('config/dev.secrets');
    expect(kept.links.get(path.join(root, '.env.local'))).toBe('loop-a/x');
    expect(kept.links.get(path.join(root, 'loop-b'))).toBe('loop-a');
  });
});

describe('restoreKeptLinks', () => {
  it('says nothing when every kept link stands as it was', () => {
    const root = workspace();
    expect(restoreKeptLinks(root, keptLinksOf(root, walked([path.join(root, '.env')])))).toBeUndefined();
  });

  it('puts back a link a command removed, and one it replaced, moving what stood there aside', () => {
    const root = workspace();
    const kept = keptLinksOf(root, walked([path.join(root, '.env')]));
    unlinkSync(path.join(root, '.env'));
    unlinkSync(path.join(root, 'tools'));
    mkdirSync(path.join(root, 'tools/hooks'), { recursive: true });
    const problem = restoreKeptLinks(root, kept);
    expect(problem).toContain('toolgate put .env, tools (what stood there moved to tools-held-by-toolgate) back');
    expect(readlinkSync(path.join(root, '.env'))).toBe('config/dev.secrets');
    expect(readlinkSync(path.join(root, 'tools'))).toBe('shared/tools');
    expect(existsSync(path.join(root, 'tools-held-by-toolgate/hooks'))).toBe(true);
  });
});

describe('restoreKeptLinks: what a command makes where a protected link led to nothing', () => {
  it('is moved aside, also when the command made a link on the way to a place of its own', () => {
    const root = workspace();
    symlinkSync('../../build/hooks/pre-push', path.join(root, '.git/hooks/pre-push'));
    symlinkSync('../../gen/hooks/post-merge', path.join(root, '.git/hooks/post-merge'));
    const kept = keptLinksOf(root, walked([path.join(root, '.env')]));
    mkdirSync(path.join(root, 'build/hooks'), { recursive: true });
    writeFileSync(path.join(root, 'build/hooks/pre-push'), '#!/bin/sh\ntouch PWNED\n', { mode: 0o755 });
    mkdirSync(path.join(root, 'evil/hooks'), { recursive: true });
    writeFileSync(path.join(root, 'evil/hooks/post-merge'), '#!/bin/sh\ntouch PWNED\n', { mode: 0o755 });
    symlinkSync('evil', path.join(root, 'gen'));
    const problem = restoreKeptLinks(root, kept);
    expect(problem).toContain('toolgate moved ');
    expect(problem).toContain('build/hooks/pre-push (where .git/hooks/pre-push leads) to build/hooks/pre-push-held-by-toolgate');
    expect(problem).toContain('evil/hooks/post-merge (where .git/hooks/post-merge leads) to evil/hooks/post-merge-held-by-toolgate');
    expect(existsSync(path.join(root, 'build/hooks/pre-push'))).toBe(false);
    expect(existsSync(path.join(root, 'evil/hooks/post-merge'))).toBe(false);
    // Nothing made there: nothing to say.
    expect(restoreKeptLinks(root, keptLinksOf(root, walked([path.join(root, '.env')])))).toBeUndefined();
  });
});

describe('createLinkKeeper', () => {
  it('reads the links only when no other command is under way: one started beside another never keeps what the other re-pointed', () => {
    const root = workspace();
    const keeper = createLinkKeeper(root);
    const found = walked([path.join(root, '.env')]);
    const first = keeper.enter(found);
    // The first re-points .env; the second starts meanwhile.
    unlinkSync(path.join(root, '.env'));
    symlinkSync('notes.txt', path.join(root, '.env'));
    const second = keeper.enter(found);
    expect(keeper.leave(first)).toContain('toolgate put .env');
    expect(keeper.leave(second)).toBeUndefined();
    expect(readlinkSync(path.join(root, '.env'))).toBe('config/dev.secrets');
  });
});
