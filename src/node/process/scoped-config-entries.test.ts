import { describe, expect, it } from 'vitest';
import { scopedConfigEntries } from './scoped-config-entries.js';

describe('scopedConfigEntries', () => {
  it('reads each scope, name and value, a key without a value, and a value holding newlines', () => {
    const stdout = 'local\0core.fsmonitor\ntouch x\0worktree\0core.bare\0local\0filter.a.clean\nline one\nline two\0';
    expect(scopedConfigEntries(stdout)).toEqual([
      { scope: 'local', name: 'core.fsmonitor', value: 'touch x' },
      { scope: 'worktree', name: 'core.bare', value: undefined },
      { scope: 'local', name: 'filter.a.clean', value: 'line one\nline two' },
    ]);
  });

  it('reads nothing from no output', () => {
    expect(scopedConfigEntries('')).toEqual([]);
  });
});
