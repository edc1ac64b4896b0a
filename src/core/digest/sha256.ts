import { ConfigurationError } from '../errors/tool-errors.js';

const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, index) => index.toString(16).padStart(2, '0'));

/**
 * A synchronous SHA-256 of UTF-8 text, as 64 lowercase hex digits. The
 * engine has no platform hash of its own; a host (or the registry options)
 * supplies one — `node:crypto` in the Node host — so a digest costs a few
 * microseconds instead of a Web Crypto round trip through a thread pool.
 */
export type Sha256Text = (text: string) => string;

/** SHA-256 of UTF-8 text via Web Crypto, as lowercase hex: the engine-pure fallback. */
export async function sha256Hex(text: string): Promise<string> {
  return hexOf(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

/** With a synchronous hash the digest is ready now; without one, Web Crypto's promise. */
export function sha256With(hash: Sha256Text | undefined, text: string): string | Promise<string> {
  if (hash === undefined) return sha256Hex(text);
  const hex = hash(text);
  // An approval binds to this value: a hash that answers anything but a digest fails closed here.
  if (typeof hex !== 'string' || !SHA256_HEX.test(hex)) throw new ConfigurationError('sha256', 'returned something other than 64 lowercase hex digits');
  return hex;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** SHA-256 of bytes via Web Crypto, as lowercase hex: for checking stored media against their content-addressed handle. */
export async function sha256BytesHex(bytes: Uint8Array): Promise<string> {
  // Web Crypto hashes views of an ArrayBuffer only: bytes on shared memory are copied first.
  const owned = bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
  return hexOf(await crypto.subtle.digest('SHA-256', owned));
}

function hexOf(digest: ArrayBuffer): string {
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += HEX[byte];
  return hex;
}
