import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolUnavailableError } from '../../core/internal.js';
import { createFsJail, type FsJail } from '../fs/fs-jail.js';
import type { FoundProtectedFiles } from './find-protected-files.js';
import { protectedMovedAside } from './move-protected-aside.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function workspace(files: Record<string, string>): { jail: FsJail; at: (name: string) => string } {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-protected-aside-')));
  made.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  const jail = createFsJail({ workspace: root, scope: 'workspace-write', protectedPaths: [], hostPaths: [path.join(root, 'store')] });
  return { jail, at: (name) => path.join(root, name) };
}

const found = (paths: readonly string[]): FoundProtectedFiles => ({ kind: 'found', paths, entries: paths.length, repositories: [] });

describe('protectedMovedAside', () => {
  it('moves aside each protected entry the walk after found and the walk before did not, and says where each went', () => {
    const { jail, at } = workspace({ '.env': 'theirs', 'toolgate.config.json': 'planted', '.claude/settings.json': 'planted' });
    const moved = protectedMovedAside(jail, [at('.env')], found([at('.env'), at('toolgate.config.json'), at('.claude/settings.json')]), 'run_command');
    expect(moved).toEqual([
      { from: 'toolgate.config.json', to: 'toolgate.config.json-held-by-toolgate' },
      { from: '.claude/settings.json', to: '.claude/settings.json-held-by-toolgate' },
    ]);
    expect(readFileSync(at('toolgate.config.json-held-by-toolgate'), 'utf8')).toBe('planted');
    expect(existsSync(at('.claude/settings.json'))).toBe(false);
    expect(readFileSync(at('.env'), 'utf8')).toBe('theirs');
  });

  it('leaves what is not protected by its place: a place outside the workspace a link leads to, a hard link by an open name, the host store', () => {
    const outside = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-protected-outside-')));
    made.push(outside);
    writeFileSync(path.join(outside, 'id_rsa'), 'key');
    const { jail, at } = workspace({ 'store/spill.txt': 'host', 'notes.md': 'x' });
    linkSync(at('notes.md'), at('.env.local'));
    const moved = protectedMovedAside(jail, [], found([path.join(outside, 'id_rsa'), at('notes.md'), at('store'), at('.env.local')]), 'run_command');
    expect(moved).toEqual([{ from: '.env.local', to: '.env.local-held-by-toolgate' }]);
    expect(existsSync(path.join(outside, 'id_rsa'))).toBe(true);
    expect(existsSync(at('notes.md'))).toBe(true);
    expect(existsSync(at('store/spill.txt'))).toBe(true);
  });

  it('moves a link at a protected name as the link, never what it leads to', () => {
    const { jail, at } = workspace({ 'staged/settings.local.json': 'planted' });
    mkdirSync(at('.claude'));
    symlinkSync(at('staged/settings.local.json'), at('.claude/settings.local.json'));
    expect(protectedMovedAside(jail, [], found([at('.claude/settings.local.json')]), 'run_command')).toEqual([
      { from: '.claude/settings.local.json', to: '.claude/settings.local.json-held-by-toolgate' },
    ]);
    expect(readFileSync(at('staged/settings.local.json'), 'utf8')).toBe('planted');
  });

  it('takes another name beside it when the plain one is taken, one no command can guess ahead', () => {
    const { jail, at } = workspace({ '.env': 'planted', '.env-held-by-toolgate': 'earlier' });
    const [moved] = protectedMovedAside(jail, [at('.env-held-by-toolgate')], found([at('.env'), at('.env-held-by-toolgate')]), 'run_command');
    expect(moved?.to).toMatch(/^\.env-held-by-toolgate-[0-9a-f]{12}$/);
    expect(readFileSync(at('.env-held-by-toolgate'), 'utf8')).toBe('earlier');
  });

  it('a workspace the walk after could not see whole: what an agent reads at its start is moved aside, and the call fails saying so', () => {
    const { jail, at } = workspace({ 'toolgate.config.yaml': 'users', 'toolgate.config.json': 'planted', '.claude/settings.local.json': 'planted', 'deep/.env': 'unseen' });
    let thrown: unknown;
    try {
      protectedMovedAside(jail, [at('toolgate.config.yaml')], undefined, 'run_command');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolUnavailableError);
    expect(String((thrown as Error).message)).toContain('could not walk the whole workspace afterwards');
    expect(String((thrown as Error).message)).toContain('toolgate.config.json to toolgate.config.json-held-by-toolgate');
    expect(existsSync(at('toolgate.config.json'))).toBe(false);
    expect(existsSync(at('.claude/settings.local.json'))).toBe(false);
    expect(readFileSync(at('toolgate.config.yaml'), 'utf8')).toBe('users');
  });

  it('an entry that cannot be moved fails the call, naming it', () => {
    // No name beside it, nor at the top, is short enough for the system to take.
    const long = `.env${'x'.repeat(240)}`;
    const { jail, at } = workspace({ [long]: 'planted' });
    expect(() => protectedMovedAside(jail, [], found([at(long)]), 'run_command')).toThrow(`could not move the protected files it made aside (${long})`);
  });
});
