import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsJail } from './fs-jail.js';
import { workspaceMembers } from './workspace-members.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function workspace(files: Record<string, string>, folders: readonly string[] = []): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-members-')));
  made.push(root);
  for (const folder of folders) mkdirSync(path.join(root, folder), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

const members = (root: string, file: string): ReturnType<typeof workspaceMembers> =>
  workspaceMembers(createFsJail({ workspace: root, scope: 'workspace-write', protectedPaths: [], hostPaths: [] }), file, 'run_command', { characters: 1_000_000 });

describe('workspaceMembers', () => {
  it("names the folders a package.json's globs match, and the folders listed to match them", () => {
    const root = workspace({ 'package.json': JSON.stringify({ workspaces: { packages: ['packages/*', 'tools/cli'] } }) }, ['packages/a', 'packages/b', 'tools/cli', 'other']);
    expect(members(root, 'package.json')).toEqual({ members: ['packages/a', 'packages/b', 'tools/cli'], listed: ['packages'] });
  });

  it("reads a pnpm-workspace.yaml's packages in any YAML form, and refuses one that is no list of strings", () => {
    const root = workspace({ 'pnpm-workspace.yaml': 'packages: ["apps/*", &x libs/core]\n', 'bad/pnpm-workspace.yaml': 'packages: [1, 2]\n' }, ['apps/web', 'libs/core']);
    expect(members(root, 'pnpm-workspace.yaml')).toEqual({ members: ['apps/web', 'libs/core'], listed: ['apps'] });
    expect(members(root, 'bad/pnpm-workspace.yaml').cut).toBe(true);
  });

  // A repository chooses both the globs and the folder names: a backtracking match held the thread for tens of seconds.
  it('matches a hostile glob against hostile names in linear time, and cuts past its steps', { timeout: 2_000 }, () => {
    const names = Array.from({ length: 40 }, (_, index) => `packages/${'a'.repeat(200)}${String(index)}`);
    const root = workspace({ 'package.json': JSON.stringify({ workspaces: [`packages/${'*a'.repeat(10)}*b`] }) }, names);
    expect(members(root, 'package.json')).toEqual({ members: [], listed: ['packages'] });
    const longer = workspace({ 'package.json': JSON.stringify({ workspaces: [`packages/${'*a'.repeat(40)}*b`] }) }, Array.from({ length: 100 }, (_, index) => `packages/${'a'.repeat(240)}${String(index)}`));
    expect(members(longer, 'package.json').cut).toBe(true);
  });
});
