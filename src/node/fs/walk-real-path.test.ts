import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolPolicyError } from '../../core/internal.js';
import { walkRealPath } from './walk-real-path.js';

describe('walkRealPath within a budget', () => {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-walk-budget-')));
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));
  const deep = path.join(workspace, ...Array<string>(200).fill('a'));
  mkdirSync(deep, { recursive: true });

  it('spends the characters of each path it hands to lstat', () => {
    const budget = { characters: 10_000_000 };
    expect(walkRealPath(workspace, path.join(workspace, 'a', 'a'), 'read_file', budget).absolute).toBe(path.join(workspace, 'a', 'a'));
    expect(10_000_000 - budget.characters).toBe(path.join(workspace, 'a').length + path.join(workspace, 'a', 'a').length);
  });

  it('refuses a path as invalid once the walks of its call have spent the budget, and walks it without one', () => {
    const budget = { characters: 20_000 };
    let refused: unknown;
    try {
      walkRealPath(workspace, deep, 'read_file', budget);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ToolPolicyError);
    expect((refused as ToolPolicyError).reason).toBe('invalid_path');
    expect(walkRealPath(workspace, deep, 'read_file').absolute).toBe(deep);
  });
});
