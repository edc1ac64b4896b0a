import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/tool-errors.js';
import { sha256With } from './sha256.js';

describe('sha256With', () => {
  it('a supplied hash that answers anything but a digest is a configuration mistake: it fails closed', () => {
    for (const answer of ['not-a-digest', 'A'.repeat(64), 42]) {
      expect(() => sha256With(() => answer as string, 'abc')).toThrow(ConfigurationError);
    }
    const digest = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(sha256With(() => digest, 'abc')).toBe(digest);
  });
});
