import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

  it('reads a package.json past a byte-order mark, as npm does, and cuts at one JSON cannot parse', () => {
    const root = workspace({ 'package.json': `\uFEFF${JSON.stringify({ workspaces: ['packages/*'] })}`, 'bad/package.json': '{ "workspaces": [' }, ['packages/a']);
    expect(members(root, 'package.json')).toEqual({ members: ['packages/a'], listed: ['packages'] });
    expect(members(root, 'bad/package.json').cut).toBe(true);
  });

  it("reads a pnpm-workspace.yaml's merge keys, and takes every folder where it lists no packages, as pnpm does", () => {
    const root = workspace({ 'pnpm-workspace.yaml': 'base: &b\n  packages: [apps/*]\n<<: *b\n', 'none/pnpm-workspace.yaml': 'linkWorkspacePackages: true\n', 'empty/pnpm-workspace.yaml': '' }, ['apps/web', 'none/x', 'empty/y']);
    expect(members(root, 'pnpm-workspace.yaml')).toEqual({ members: ['apps/web'], listed: ['apps'] });
    expect(members(root, 'none/pnpm-workspace.yaml').members).toEqual(['.', 'x']);
    expect(members(root, 'empty/pnpm-workspace.yaml').members).toEqual(['.', 'y']);
  });

  it('cuts at a member that links out of the workspace rather than naming it', () => {
    const root = workspace({ 'package.json': JSON.stringify({ workspaces: ['packages/*'] }) }, ['packages/a']);
    const outside = workspace({}, ['elsewhere']);
    symlinkSync(path.join(outside, 'elsewhere'), path.join(root, 'packages', 'out'));
    expect(members(root, 'package.json')).toEqual({ members: ['packages/a'], listed: ['packages'], cut: true });
  });

  // A repository chooses both the globs and the folder names: a backtracking match held the thread for tens of seconds.
  it('matches a hostile glob against hostile names in linear time, and cuts past its steps', { timeout: 2_000 }, () => {
    const names = Array.from({ length: 40 }, (_, index) => `packages/${'a'.repeat(200)}${String(index)}`);
    const root = workspace({ 'package.json': JSON.stringify({ workspaces: [`packages/${'*a'.repeat(10)}*b`] }) }, names);
    expect(members(root, 'package.json')).toEqual({ members: [], listed: ['packages'] });
    const longer = workspace({ 'package.json': JSON.stringify({ workspaces: [`packages/${'*a'.repeat(40)}*b`] }) }, Array.from({ length: 100 }, (_, index) => `packages/${'a'.repeat(240)}${String(index)}`));
    expect(members(longer, 'package.json').cut).toBe(true);
  });

  // Each glob of a file up to its megabyte listed its folders again: 180,000 `*` against thirty folders held the host 6 s.
  it('lists each folder once, and stops matching past its steps, however many globs a file repeats', { timeout: 2_000 }, () => {
    const globs = Array.from({ length: 180_000 }, (_, index) => ['*/', '*', './*', '*/x'][index % 4] as string);
    const root = workspace({ 'package.json': JSON.stringify({ workspaces: globs }) }, Array.from({ length: 30 }, (_, index) => `p${String(index)}/x`));
    expect(members(root, 'package.json').members).toHaveLength(60);
  });
});
