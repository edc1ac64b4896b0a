import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLinkedProtection } from './linked-protection.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A workspace whose `.env` links to `config/dev.secrets`, with a plain `notes.txt` and a `.env.local` link that leads nowhere yet. */
function workspace(): string {
  const folder = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-linked-')));
  made.push(folder);
  mkdirSync(path.join(folder, 'config'));
  writeFileSync(path.join(folder, 'config', 'dev.secrets'), 'DB_PASSWORD=x\n');
  writeFileSync(path.join(folder, 'notes.txt'), 'plain\n');
  symlinkSync('config/dev.secrets', path.join(folder, '.env'));
  symlinkSync('config/missing', path.join(folder, '.env.local'));
  return folder;
}

/** The repository's pre-commit hook, a link to `tools/pre-commit`. */
function linkHook(root: string): void {
  mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
  mkdirSync(path.join(root, 'tools'));
  writeFileSync(path.join(root, 'tools', 'pre-commit'), '#!/bin/sh\n');
  symlinkSync('../../tools/pre-commit', path.join(root, '.git', 'hooks', 'pre-commit'));
}

describe('createLinkedProtection', () => {
  it('knows where the protected entries a walk found lead, when they are links, compared case-folded', () => {
    const root = workspace();
    const linked = createLinkedProtection(root);
    linked.learn([path.join(root, '.env'), path.join(root, '.env.local'), path.join(root, 'notes.txt')]);
    expect(linked.has(path.join(root, 'config', 'dev.secrets'))).toBe(true);
    expect(linked.has(path.join(root, 'CONFIG', 'DEV.secrets'))).toBe(true);
    // A plain protected file makes nothing else protected; a link that leads nowhere yet protects where a file written
    // through it would land, which would become the user's `.env.local`.
    expect(linked.has(path.join(root, 'notes.txt'))).toBe(false);
    expect(linked.has(path.join(root, 'config', 'missing'))).toBe(true);
    expect(linked.has(path.join(root, 'config', 'other'))).toBe(false);
    // Kept while the gateway runs: a command that removed the link leaves its target protected all the same.
    linked.learn([]);
    expect(linked.has(path.join(root, 'config', 'dev.secrets'))).toBe(true);
  });

  it('protects a folder a protected name links to with everything in it', () => {
    const root = workspace();
    mkdirSync(path.join(root, 'dotfiles', 'ssh'), { recursive: true });
    symlinkSync('dotfiles/ssh', path.join(root, '.ssh'));
    const linked = createLinkedProtection(root);
    linked.learn([path.join(root, '.ssh')]);
    expect(linked.has(path.join(root, 'dotfiles', 'ssh'))).toBe(true);
    expect(linked.has(path.join(root, 'dotfiles', 'ssh', 'config'))).toBe(true);
    expect(linked.has(path.join(root, 'dotfiles', 'sshd'))).toBe(false);
  });

  it('knows where the hooks of the workspace repository that are links lead, which the walk does not enter', () => {
    const root = workspace();
    linkHook(root);
    const linked = createLinkedProtection(root);
    linked.learn([]);
    expect(linked.has(path.join(root, 'tools', 'pre-commit'))).toBe(true);
  });

  it('makes the first walk before the first question, once, and answers no while any walk runs', () => {
    const root = workspace();
    const linked = createLinkedProtection(root);
    let walks = 0;
    const seenInWalk: boolean[] = [];
    const walk = (): void =>
      linked.walking(() => {
        walks += 1;
        seenInWalk.push(linked.has(path.join(root, 'config', 'dev.secrets')));
        linked.learn([path.join(root, '.env')]);
      });
    linked.walkFirstWith(walk);
    expect(linked.has(path.join(root, 'config', 'dev.secrets'))).toBe(true);
    expect(linked.has(path.join(root, 'notes.txt'))).toBe(false);
    walk();
    expect(walks).toBe(2);
    // Inside a walk the workspace is judged by its names alone, whatever the last walk learned.
    expect(seenInWalk).toEqual([false, false]);
  });

  it('knows the folders that hold a place, the workspace aside, and masks only where protected names lead, not the hooks it holds', () => {
    const root = workspace();
    linkHook(root);
    const linked = createLinkedProtection(root);
    linked.learn([path.join(root, '.env')]);
    expect(linked.holds(path.join(root, 'config'))).toBe(true);
    expect(linked.holds(path.join(root, 'tools'))).toBe(true);
    expect(linked.holds(root)).toBe(false);
    expect(linked.holds(path.join(root, 'config', 'dev.secrets'))).toBe(false);
    expect(linked.maskedPlaces()).toEqual([path.join(root, 'config', 'dev.secrets')]);
  });

  it('protects the hooks folder core.hooksPath names, made or not, with everything in it, and a configuration file an include names', () => {
    const root = workspace();
    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: root });
    execFileSync('git', ['config', 'include.path', '../shared.gitconfig'], { cwd: root });
    const linked = createLinkedProtection(root);
    linked.learn([]);
    // Not made yet: a file written there would be a hook the user's git runs.
    expect(linked.has(path.join(root, '.husky', 'pre-commit'))).toBe(true);
    expect(linked.has(path.join(root, '.HUSKY', '_', 'husky.sh'))).toBe(true);
    expect(linked.has(path.join(root, 'shared.gitconfig'))).toBe(true);
    expect(linked.has(path.join(root, 'notes.txt'))).toBe(false);
  });
});
