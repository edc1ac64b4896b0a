import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/tool-errors.js';
import { sha256BytesHex, sha256Hex, sha256With } from './sha256.js';

describe('sha256With', () => {
  it('a supplied hash that answers anything but a digest is a configuration mistake: it fails closed', () => {
    for (const answer of ['not-a-digest', 'A'.repeat(64), 42]) {
      expect(() => sha256With(() => answer as string, 'abc')).toThrow(ConfigurationError);
    }
    const digest = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(sha256With(() => digest, 'abc')).toBe(digest);
  });
});

describe('sha256BytesHex', () => {
  it('hashes the bytes themselves: bytes that are not UTF-8 hash as they are', async () => {
    expect(await sha256BytesHex(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256BytesHex(new Uint8Array([0xff, 0x00]))).toBe('ea5dbf9596d187e9500f23e9a680109475341cf4e81f7e043f7d97152c10772f');
    expect(await sha256Hex('\u00ff\u0000')).not.toBe('ea5dbf9596d187e9500f23e9a680109475341cf4e81f7e043f7d97152c10772f');
  });
});
