import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../../core/internal.js';
import { createFileIfAbsentSync } from '../../node/fs/create-file-if-absent.js';

export const SIGNING_KEY_FILE = 'journal-ed25519.pem';

/** Verifies Ed25519 signatures over row hashes; the key id is bound into each signed row's hash. */
export interface ReceiptVerifier {
  readonly keyId: string;
  readonly publicKeyPem: string;
  verify(hash: string, signature: string): boolean;
}

export interface ReceiptSigner extends ReceiptVerifier {
  sign(hash: string): string;
}

function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

export function createVerifier(publicKey: KeyObject): ReceiptVerifier {
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    keyId: keyIdOf(publicKey),
    publicKeyPem,
    verify: (hash, signature) => {
      try {
        return verify(null, Buffer.from(hash, 'hex'), publicKey, Buffer.from(signature, 'base64'));
      } catch {
        return false;
      }
    },
  };
}

/** A verifier from a PEM public key, for an auditor who holds no private key. */
export function verifierFromPem(pem: string): ReceiptVerifier {
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('not ed25519');
    return createVerifier(key);
  } catch {
    throw new ConfigurationError('publicKey', 'must be an Ed25519 public key in PEM form');
  }
}

/**
 * Load the journal's signing key from `keyDir`, generating it on first use
 * (`keyCreated`).
 * The file is created exclusively with mode 0600 (two processes racing to
 * create it end up sharing one key); an existing key that is a symlink, is
 * not a regular file, or is readable by group or others is refused.
 */
export function loadReceiptSigner(keyDir: string): ReceiptSigner & { readonly keyCreated: boolean } {
  mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  const path = join(keyDir, SIGNING_KEY_FILE);
  // A key made now is kept only if no key is there yet; a process that lost the race to create it uses the winner's.
  const generated = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyCreated = createFileIfAbsentSync(path, generated, { mode: 0o600 }) === 'created';
  const pem = keyCreated ? generated : readExistingKey(path);
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new ConfigurationError('signing key', 'must be an Ed25519 private key');
  const verifier = createVerifier(createPublicKey(privateKey));
  return { ...verifier, keyCreated, sign: (hash) => sign(null, Buffer.from(hash, 'hex'), privateKey).toString('base64') };
}

function readExistingKey(path: string): string {
  const link = lstatSync(path);
  if (link.isSymbolicLink() || !link.isFile()) throw new ConfigurationError('signing key', 'must be a regular file, not a link');
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if ((stat.mode & 0o077) !== 0) throw new ConfigurationError('signing key', 'must not be readable or writable by group or others (mode 0600)');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
