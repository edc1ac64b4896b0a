import { describe, expect, it } from 'vitest';
import { isValidServerName } from './is-valid-server-name.js';

describe('isValidServerName', () => {
  it('accepts lowercase identifiers and refuses everything else', () => {
    expect(isValidServerName('github')).toBe(true);
    expect(isValidServerName('my_server2')).toBe(true);
    for (const bad of ['', 'GitHub', '2fast', 'a-b', 'a__b', 'a'.repeat(33), 42, undefined]) expect(isValidServerName(bad)).toBe(false);
  });
});
