import crypto from 'node:crypto';

/**
 * `node:crypto`'s SHA-256 of UTF-8 text as lowercase hex: synchronous, a few
 * microseconds for a call's arguments, where Web Crypto is a thread-pool
 * round trip. The Node host supplies it as `sha256`; a registry without the
 * Node host can take it as its own `sha256` option. The one-shot
 * `crypto.hash` (Node ≥ 20.12) skips building a Hash object per digest;
 * older Node falls back to `createHash`.
 */
export const nodeSha256: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
