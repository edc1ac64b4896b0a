import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolUnavailableError } from '../../core/internal.js';
import { keepingWorkTreeCode, keepWorkTreeCode, restoreWorkTreeCode, UnkeptWorkTreeCodeError } from './keep-work-tree-code.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A repository whose hooks folder is `.husky` (a pre-commit in it) and which includes `shared.gitconfig`. */
function repository(): string {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-keep-work-tree-code-')));
  made.push(workspace);
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: workspace });
  execFileSync('git', ['config', 'include.path', '../shared.gitconfig'], { cwd: workspace });
  mkdirSync(path.join(workspace, '.husky'));
  writeFileSync(path.join(workspace, '.husky/pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  writeFileSync(path.join(workspace, 'shared.gitconfig'), '[pull]\n\trebase = true\n');
  return workspace;
}

describe('keepWorkTreeCode', () => {
  it('moves aside what a call changed or made there and puts back what stood there, mode included', () => {
    const workspace = repository();
    const kept = keepWorkTreeCode(workspace);
    writeFileSync(path.join(workspace, '.husky/pre-commit'), 'touch PWNED\n');
    writeFileSync(path.join(workspace, '.husky/post-checkout'), 'touch PWNED\n');
    unlinkSync(path.join(workspace, 'shared.gitconfig'));
    const check = restoreWorkTreeCode(workspace, kept);
    expect(check.moved).toEqual(
      expect.arrayContaining([
        { from: '.husky/pre-commit', to: '.husky/pre-commit-held-by-toolgate' },
        { from: '.husky/post-checkout', to: '.husky/post-checkout-held-by-toolgate' },
      ]),
    );
    expect([...check.restored].sort()).toEqual(['.husky/pre-commit', 'shared.gitconfig']);
    expect(check.failed).toEqual([]);
    expect(readFileSync(path.join(workspace, '.husky/pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expect(statSync(path.join(workspace, '.husky/pre-commit')).mode & 0o777).toBe(0o755);
    expect(existsSync(path.join(workspace, '.husky/post-checkout'))).toBe(false);
    expect(readFileSync(path.join(workspace, 'shared.gitconfig'), 'utf8')).toBe('[pull]\n\trebase = true\n');
  });

  it('leaves what a call did not change, and keeps nothing in a workspace without a repository', () => {
    const workspace = repository();
    expect(restoreWorkTreeCode(workspace, keepWorkTreeCode(workspace))).toEqual({ moved: [], restored: [], failed: [] });
    const plain = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-keep-work-tree-code-')));
    made.push(plain);
    expect(keepWorkTreeCode(plain)).toEqual({ places: [], entries: new Map() });
  });
});

describe('keepWorkTreeCode with the protected files', () => {
  it('puts back a protected file a call rewrote, and moves aside one it made', () => {
    const workspace = repository();
    const config = path.join(workspace, 'toolgate.config.json');
    writeFileSync(config, '{"mode":"ask"}\n');
    const protectedFiles = (): string[] => [config, path.join(workspace, '.mcp.json')].filter((entry) => existsSync(entry));
    const kept = keepWorkTreeCode(workspace, protectedFiles);
    writeFileSync(config, '{"mode":"auto"}\n');
    writeFileSync(path.join(workspace, '.mcp.json'), '{}\n');
    const check = restoreWorkTreeCode(workspace, kept, protectedFiles);
    expect(check.moved).toEqual([
      { from: 'toolgate.config.json', to: 'toolgate.config.json-held-by-toolgate' },
      { from: '.mcp.json', to: '.mcp.json-held-by-toolgate' },
    ]);
    expect(check.restored).toEqual(['toolgate.config.json']);
    expect(readFileSync(config, 'utf8')).toBe('{"mode":"ask"}\n');
    expect(existsSync(path.join(workspace, '.mcp.json'))).toBe(false);
  });
});

describe('keepingWorkTreeCode', () => {
  it("answers a call that changed nothing, and fails one that wrote a hook, typed, once it is put back", async () => {
    const workspace = repository();
    await expect(keepingWorkTreeCode(workspace, 'git_status', async () => 'clean')).resolves.toBe('clean');
    const wrote = keepingWorkTreeCode(workspace, 'git_checkout', async () => writeFileSync(path.join(workspace, '.husky/pre-commit'), 'touch PWNED\n'));
    await expect(wrote).rejects.toBeInstanceOf(ToolUnavailableError);
    await expect(keepingWorkTreeCode(workspace, 'git_checkout', async () => writeFileSync(path.join(workspace, '.husky/pre-commit'), 'x\n'))).rejects.toThrow(/pre-commit moved to/);
    expect(readFileSync(path.join(workspace, '.husky/pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  });

  it('refuses a call, before it runs, when the protected files cannot be known', async () => {
    let ran = false;
    const unknown = (): string[] => {
      throw new UnkeptWorkTreeCodeError('the workspace could not be walked whole for its protected files');
    };
    await expect(keepingWorkTreeCode(repository(), 'git_checkout', async () => (ran = true), unknown)).rejects.toThrow(/could not be walked whole/);
    expect(ran).toBe(false);
  });
});

describe('a Node host keeps the work tree only across an upstream call that writes it beyond what it names', () => {
  it('undoes what a git checkout wrote of the hooks folder, and leaves a call that writes only its own target alone', async () => {
    const { createNodeHost } = await import('../create-node-host.js');
    const workspace = repository();
    const host = createNodeHost({ workspace, scope: 'workspace-write', sandbox: 'off' });
    const hook = path.join(workspace, '.husky/pre-commit');
    const writeHook = { call: () => Promise.resolve(writeFileSync(hook, 'touch PWNED\n')) };
    try {
      const checkout = host.holdingRepositories(writeHook).call({ server: 'git', tool: 'git_checkout', arguments: {}, targetsJudged: true, writesWorkTree: true });
      await expect(checkout).rejects.toBeInstanceOf(ToolUnavailableError);
      expect(readFileSync(hook, 'utf8')).toBe('#!/bin/sh\nexit 0\n');
      // A tool whose writes are the paths its arguments name was judged by them (a card names a protected one).
      await host.holdingRepositories(writeHook).call({ server: 'fs', tool: 'write_file', arguments: {}, targetsJudged: true });
      expect(readFileSync(hook, 'utf8')).toBe('touch PWNED\n');
    } finally {
      await host.close();
    }
  });
});
