import { describe, expect, it } from 'vitest';
import { isToolName } from './tool-name.js';

describe('isToolName', () => {
  it('accepts a lowercase letter then up to 63 of [a-z0-9_], and nothing else', () => {
    for (const name of ['a', 'read_file', 'mcp_up_echo', `a${'b'.repeat(63)}`]) expect(isToolName(name), name).toBe(true);
    for (const name of ['', '_a', '1a', 'Read', 'read-file', 'mcp__up__echo'.replace(/_/g, '-'), `a${'b'.repeat(64)}`, 'a\n', 'ａ', 7, undefined, ['a']]) {
      expect(isToolName(name), String(name)).toBe(false);
    }
  });
});
