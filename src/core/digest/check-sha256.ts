import { ConfigurationError } from '../errors/tool-errors.js';
import type { Sha256Text } from './sha256.js';

/**
 * Known answers a supplied SHA-256 must give before any digest is trusted to
 * it: ASCII, UTF-8 beyond ASCII (a hash of UTF-16 units or Latin-1 bytes
 * differs), and the empty string. An approval binds to the action digest, so
 * a function that is not SHA-256 of UTF-8 would let one approval stand for
 * another action; it is refused when the registry is built.
 */
const VECTORS: readonly (readonly [string, string])[] = [
  ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['é😀', '1184d1f608158eea09d297565575892231550c403aaa913008d867a97cfd5c76'],
  ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
];

export function checkSha256(hash: unknown, field: string): Sha256Text | undefined {
  if (hash === undefined) return undefined;
  if (typeof hash !== 'function') throw new ConfigurationError(field, 'must be a function from text to its SHA-256 hex digest');
  for (const [text, expected] of VECTORS) {
    let answer: unknown;
    try {
      answer = (hash as Sha256Text)(text);
    } catch {
      answer = undefined;
    }
    if (answer !== expected) throw new ConfigurationError(field, 'must return the SHA-256 of the UTF-8 text as 64 lowercase hex digits');
  }
  return hash as Sha256Text;
}
