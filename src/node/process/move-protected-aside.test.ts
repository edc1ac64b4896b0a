import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsJail, type FsJail } from '../fs/fs-jail.js';
import type { FoundProtectedFiles } from './find-protected-files.js';
import { createProtectedCreationGuard, protectedMovedAside } from './move-protected-aside.js';

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
    const { moved, problem } = protectedMovedAside(jail, new Set([at('.env')]), found([at('.env'), at('toolgate.config.json'), at('.claude/settings.json')]));
    expect(problem).toBeUndefined();
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
    const { moved } = protectedMovedAside(jail, new Set(), found([path.join(outside, 'id_rsa'), at('notes.md'), at('store'), at('.env.local')]));
    expect(moved).toEqual([{ from: '.env.local', to: '.env.local-held-by-toolgate' }]);
    expect(existsSync(path.join(outside, 'id_rsa'))).toBe(true);
    expect(existsSync(at('notes.md'))).toBe(true);
    expect(existsSync(at('store/spill.txt'))).toBe(true);
  });

  it('moves a link at a protected name as the link, never what it leads to', () => {
    const { jail, at } = workspace({ 'staged/settings.local.json': 'planted' });
    mkdirSync(at('.claude'));
    symlinkSync(at('staged/settings.local.json'), at('.claude/settings.local.json'));
    expect(protectedMovedAside(jail, new Set(), found([at('.claude/settings.local.json')])).moved).toEqual([
      { from: '.claude/settings.local.json', to: '.claude/settings.local.json-held-by-toolgate' },
    ]);
    expect(readFileSync(at('staged/settings.local.json'), 'utf8')).toBe('planted');
  });

  it('takes another name beside it when the plain one is taken, one no command can guess ahead', () => {
    const { jail, at } = workspace({ '.env': 'planted', '.env-held-by-toolgate': 'earlier' });
    const [moved] = protectedMovedAside(jail, new Set(), found([at('.env'), at('.env-held-by-toolgate')])).moved;
    expect(moved?.to).toMatch(/^\.env-held-by-toolgate-[0-9a-f]{12}$/);
    // What this guard moved aside before, even unknown to the walk before, is not moved again.
    expect(readFileSync(at('.env-held-by-toolgate'), 'utf8')).toBe('earlier');
  });

  it('a workspace the walk after could not see whole: what an agent reads at its start is moved aside, and the check fails saying so', () => {
    const { jail, at } = workspace({
      'toolgate.config.yaml': 'users',
      'toolgate.config.json': 'planted',
      '.claude/settings.local.json': 'planted',
      'deep/.env': 'unseen',
      // The user's repository and a protected file the policy lets be read: never in a walk's list, never moved.
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.env.example': 'TOKEN=\n',
    });
    const { moved, problem } = protectedMovedAside(jail, new Set([at('toolgate.config.yaml')]), undefined, (absolute) => absolute === at('.env.example'));
    expect(moved.map((entry) => entry.from).sort()).toEqual(['.claude/settings.local.json', 'toolgate.config.json']);
    expect(problem).toContain('could not be walked whole afterwards');
    expect(existsSync(at('.git/HEAD'))).toBe(true);
    expect(existsSync(at('.env.example'))).toBe(true);
    expect(problem).toContain('toolgate.config.json to toolgate.config.json-held-by-toolgate');
    expect(existsSync(at('toolgate.config.json'))).toBe(false);
    expect(readFileSync(at('toolgate.config.yaml'), 'utf8')).toBe('users');
  });

  it('a workspace the walk after could not see whole: what a client reads below a folder at the top that the protected list names files below is moved aside too', () => {
    const { jail, at } = workspace({
      '.cursor/mcp.json': 'planted',
      '.vscode/mcp.json': 'planted',
      '.vscode/tasks.json': 'planted',
      '.codex/config.toml': 'planted',
      '.kiro/settings/mcp.json': 'planted',
      '.amazonq/cli-agents/team/shared/agent.json': 'planted',
      // The user's, there before the command: left alone.
      '.vscode/settings.json': 'users',
      // Open where they stand: `settings/*.json` is protected only inside `.kiro`, `.vscode/extensions.json` never.
      'settings/mcp.json': 'open',
      '.vscode/extensions.json': 'open',
      // Below a folder the protected list names nothing below, and past the depth read: the call fails all the same.
      'docs/.vscode/mcp.json': 'unseen',
      '.amazonq/a/b/c/d/agent.json': 'unseen',
      // A nested repository: the repository guards' to judge.
      '.vscode/project/.git/config': 'theirs',
    });
    symlinkSync(at('docs'), at('.continue'));
    const { moved, problem } = protectedMovedAside(jail, new Set([at('.vscode/settings.json')]), undefined);
    expect(moved.map((entry) => entry.from).sort()).toEqual([
      '.amazonq/cli-agents/team/shared/agent.json',
      '.codex/config.toml',
      '.continue',
      '.cursor/mcp.json',
      '.kiro/settings/mcp.json',
      '.vscode/mcp.json',
      '.vscode/tasks.json',
    ]);
    expect(problem).toContain('could not be walked whole afterwards');
    expect(readFileSync(at('.vscode/settings.json'), 'utf8')).toBe('users');
    for (const name of ['settings/mcp.json', '.vscode/extensions.json', 'docs/.vscode/mcp.json', '.amazonq/a/b/c/d/agent.json', '.vscode/project/.git/config']) expect(existsSync(at(name)), name).toBe(true);
  });

  it('a workspace the walk after could not see whole: folders flooded with entries keep no client folder from being read', () => {
    const { jail, at } = workspace({ '.amazonq/mcp.json': 'planted', '.vscode/mcp.json': 'planted', '.cursor/mcp.json': 'planted', '.kiro/settings/mcp.json': 'planted' });
    // Each past the bound alone: one at the top of a client folder, one below it.
    for (const folder of ['.amazonq', '.amazonq/flood']) {
      mkdirSync(at(folder), { recursive: true });
      for (let index = 0; index < 5000; index += 1) writeFileSync(at(`${folder}/f${index}`), '');
    }
    const { moved } = protectedMovedAside(jail, new Set(), undefined);
    expect(moved.map((entry) => entry.from).sort()).toEqual(['.amazonq/mcp.json', '.cursor/mcp.json', '.kiro/settings/mcp.json', '.vscode/mcp.json']);
  });

  it('moves aside a link a command made under the name of a folder the protected list names files below, wherever it leads', () => {
    const { jail, at } = workspace({ 'staged/settings.local.json': 'planted', 'notes/a.md': 'x' });
    symlinkSync(at('staged'), at('.claude'));
    symlinkSync(at('notes'), at('docs'));
    symlinkSync(at('nowhere-yet'), at('.CONFIG'));
    // `gcloud` names protected files only below `.config`: a link of that name elsewhere leads to nothing protected.
    symlinkSync(at('notes'), at('notes/gcloud'));
    const { moved } = protectedMovedAside(jail, new Set(), found([at('.claude'), at('docs'), at('.CONFIG'), at('notes/gcloud')]));
    expect(moved).toEqual([
      { from: '.claude', to: '.claude-held-by-toolgate' },
      { from: '.CONFIG', to: '.CONFIG-held-by-toolgate' },
    ]);
    expect(existsSync(at('docs'))).toBe(true);
    expect(existsSync(at('notes/gcloud'))).toBe(true);
    expect(readFileSync(at('staged/settings.local.json'), 'utf8')).toBe('planted');
  });

  it('an entry that cannot be moved fails the call, naming it', () => {
    // No name beside it, nor at the top, is short enough for the system to take.
    const long = `.env${'x'.repeat(240)}`;
    const { jail, at } = workspace({ [long]: 'planted' });
    expect(protectedMovedAside(jail, new Set(), found([at(long)])).problem).toContain(`could not move the protected files it made aside (${long})`);
  });
});

describe('createProtectedCreationGuard', () => {
  it("takes what is there as the user's only when no other command is under way: a command started beside another cannot keep what the other made", () => {
    const { jail, at } = workspace({ '.env': 'theirs', 'toolgate.config.json': 'planted by the first' });
    const guard = createProtectedCreationGuard(jail);
    const first = guard.enter(found([at('.env')]));
    // The second starts while the first runs, after it made the file: its walk finds it, and its mask hides it.
    const second = guard.enter(found([at('.env'), at('toolgate.config.json')]));
    expect([...second]).toEqual([at('.env')]);
    expect(guard.leave(first, found([at('.env'), at('toolgate.config.json')])).moved).toEqual([{ from: 'toolgate.config.json', to: 'toolgate.config.json-held-by-toolgate' }]);
    // The name is free again inside the second, which writes it once more: its own check takes it out too.
    writeFileSync(at('toolgate.config.json'), 'planted by the second');
    const { moved } = guard.leave(second, found([at('.env'), at('toolgate.config.json'), at('toolgate.config.json-held-by-toolgate')]));
    expect(moved).toHaveLength(1);
    expect(moved[0]?.from).toBe('toolgate.config.json');
    expect(existsSync(at('toolgate.config.json'))).toBe(false);
    // With none under way, the next command's walk is the user's again.
    writeFileSync(at('.env.local'), 'the user made this meanwhile');
    expect([...guard.enter(found([at('.env'), at('.env.local')]))]).toEqual([at('.env'), at('.env.local')]);
  });
});
