import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { policyImportScope } from './policy-import-scope.js';

/** A HOME with the user's Claude Code settings and one Gemini CLI user policy, and a workspace beside it. */
function homeAndWorkspace(): { home: string; workspace: string } {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-import-scope-'));
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(home, '.gemini', 'policies'), { recursive: true });
  mkdirSync(join(workspace, '.claude'), { recursive: true });
  for (const file of [join(home, '.claude', 'settings.json'), join(home, '.claude', 'settings.local.json'), join(workspace, '.claude', 'settings.json')]) writeFileSync(file, '{}');
  writeFileSync(join(home, '.gemini', 'policies', 'mine.toml'), '');
  return { home, workspace };
}

describe('policyImportScope: Claude Code settings', () => {
  it("reads the user's settings, and the local file beside them, as the user's", async () => {
    const { home } = homeAndWorkspace();
    for (const name of ['settings.json', 'settings.local.json']) expect(await policyImportScope({ from: 'claude', path: join(home, '.claude', name) }, home)).toBe('user');
  });

  it('reads a project’s settings, and a copy of the user’s settings, as a project’s', async () => {
    const { home, workspace } = homeAndWorkspace();
    writeFileSync(join(workspace, 'user-settings-copy.json'), '{}');
    expect(await policyImportScope({ from: 'claude', path: join(workspace, '.claude', 'settings.json') }, home)).toBe('project');
    expect(await policyImportScope({ from: 'claude', path: join(workspace, 'user-settings-copy.json') }, home)).toBe('project');
  });

  it("decides by the real path: a link to the user's settings, and the file the user's settings link to, are the user's", async () => {
    const { home, workspace } = homeAndWorkspace();
    symlinkSync(join(home, '.claude', 'settings.json'), join(workspace, 'linked.json'));
    expect(await policyImportScope({ from: 'claude', path: join(workspace, 'linked.json') }, home)).toBe('user');
    // A dotfiles checkout: ~/.claude/settings.json is a link to the file the configuration names.
    const dotfiles = join(home, 'dotfiles-claude.json');
    writeFileSync(dotfiles, '{}');
    const otherHome = join(home, 'other-home');
    mkdirSync(join(otherHome, '.claude'), { recursive: true });
    symlinkSync(dotfiles, join(otherHome, '.claude', 'settings.json'));
    expect(await policyImportScope({ from: 'claude', path: dotfiles }, otherHome)).toBe('user');
    // The same path is a project's under a HOME whose settings are other files.
    expect(await policyImportScope({ from: 'claude', path: join(workspace, 'linked.json') }, otherHome)).toBe('project');
  });

  it("keeps a declared user scope for any file, and refuses a declared project scope for the user's own", async () => {
    const { home, workspace } = homeAndWorkspace();
    expect(await policyImportScope({ from: 'claude', path: join(workspace, '.claude', 'settings.json'), scope: 'user' }, home)).toBe('user');
    expect(await policyImportScope({ from: 'claude', path: join(workspace, '.claude', 'settings.json'), scope: 'project' }, home)).toBe('project');
    const refused = policyImportScope({ from: 'claude', path: join(home, '.claude', 'settings.json'), scope: 'project' }, home);
    await expect(refused).rejects.toBeInstanceOf(CliError);
    await expect(refused).rejects.toThrow(`Policy import ${join(home, '.claude', 'settings.json')} is the user's own Claude Code file`);
  });

  it('refuses a file that is not there', async () => {
    const { home, workspace } = homeAndWorkspace();
    await expect(policyImportScope({ from: 'claude', path: join(workspace, 'missing.json') }, home)).rejects.toThrow('cannot be read');
  });
});

describe('policyImportScope: Gemini CLI policies', () => {
  it("reads a policy of the user's policy folder, or one a link there leads to, as the user's; any other as a project's", async () => {
    const { home, workspace } = homeAndWorkspace();
    expect(await policyImportScope({ from: 'gemini', path: join(home, '.gemini', 'policies', 'mine.toml') }, home)).toBe('user');
    writeFileSync(join(workspace, 'kept.toml'), '');
    symlinkSync(join(workspace, 'kept.toml'), join(home, '.gemini', 'policies', 'kept.toml'));
    expect(await policyImportScope({ from: 'gemini', path: join(workspace, 'kept.toml') }, home)).toBe('user');
    mkdirSync(join(workspace, '.gemini', 'policies'), { recursive: true });
    writeFileSync(join(workspace, '.gemini', 'policies', 'repo.toml'), '');
    expect(await policyImportScope({ from: 'gemini', path: join(workspace, '.gemini', 'policies', 'repo.toml') }, home)).toBe('project');
    // Gemini CLI reads only the folder's own `*.toml`: a file below it or of another name is not a user policy.
    mkdirSync(join(home, '.gemini', 'policies', 'old'));
    writeFileSync(join(home, '.gemini', 'policies', 'old', 'kept.toml'), '');
    writeFileSync(join(home, '.gemini', 'policies', 'notes.txt'), '');
    for (const name of ['old/kept.toml', 'notes.txt']) expect(await policyImportScope({ from: 'gemini', path: join(home, '.gemini', 'policies', name) }, home)).toBe('project');
    await expect(policyImportScope({ from: 'gemini', path: join(home, '.gemini', 'policies', 'mine.toml'), scope: 'project' }, home)).rejects.toThrow("is the user's own Gemini CLI file");
  });

  it("refuses when the user's policy folder cannot be listed (here a link loop), rather than read a user policy as a project's", async () => {
    const { home, workspace } = homeAndWorkspace();
    writeFileSync(join(workspace, 'policy.toml'), '');
    const policies = join(home, '.gemini', 'policies');
    rmSync(policies, { recursive: true });
    symlinkSync(policies, policies);
    await expect(policyImportScope({ from: 'gemini', path: join(workspace, 'policy.toml') }, home)).rejects.toThrow('a policy directory exists but cannot be read');
  });
});
