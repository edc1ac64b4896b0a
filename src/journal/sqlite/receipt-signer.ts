import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../../core/internal.js';
import { createFileIfAbsentSync } from '../../node/fs/create-file-if-absent.js';
import { prepareOwnFolder } from '../../node/fs/prepare-own-folder.js';

export const SIGNING_KEY_FILE = 'journal-ed25519.pem';

/** Verifies Ed25519 signatures over row hashes; the key id is bound into each signed row's hash. */
export interface ReceiptVerifier {
  readonly keyId: string;
  readonly publicKeyPem: string;
  verify(hash: string, signature: string): boolean;
  /**
   * Whether `seal` is the key's seal over `hash` (see `ReceiptSigner.seal`).
   * Absent from a verifier that holds the public key alone: only the private
   * key checks a seal.
   */
  verifySeal?(hash: string, seal: string): boolean;
}

export interface ReceiptSigner extends ReceiptVerifier {
  sign(hash: string): string;
  /**
   * A seal over `hash`: HMAC-SHA256 under a secret derived from the private
   * key, about 2 µs where an Ed25519 signature takes 30 and its check 85.
   * Only a holder of the private key makes or checks one; the public key
   * checks none. Written in the `signature` column, told apart by its prefix
   * (`isSeal`): base64 has no colon.
   */
  seal(hash: string): string;
  verifySeal(hash: string, seal: string): boolean;
}

const SEAL_PREFIX = 'hmac-sha256:';

/**
 * Whether a row's `signature` column holds a seal (`ReceiptSigner.seal`)
 * rather than an Ed25519 signature. Read from the file, the column may hold
 * what the journal never writes there (a BLOB): that is neither.
 */
export function isSeal(signature: unknown): boolean {
  return typeof signature === 'string' && signature.startsWith(SEAL_PREFIX);
}

/**
 * Whether the key made `signature` over `hash`: its Ed25519 signature, or
 * its seal; undefined for a seal the verifier cannot check (it holds the
 * public key alone).
 */
export function keyMade(verifier: ReceiptVerifier, hash: string, signature: unknown): boolean | undefined {
  // A column that holds no text (a BLOB a writer without the key put there) is no signature of the key: a bad one,
  // reported as such, never an error that stops the open, the head check or verify().
  if (typeof signature !== 'string') return false;
  return isSeal(signature) ? verifier.verifySeal?.(hash, signature) : verifier.verify(hash, signature);
}

/** The sha256 of a public key's SPKI encoding, as hex: what names a key to a person; its first 16 digits are the key id rows carry. */
function fingerprintOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
}

function keyIdOf(publicKey: KeyObject): string {
  return fingerprintOf(publicKey).slice(0, 16);
}

/** The fingerprint of the public key of a signing key given as PEM; throws for text that is no Ed25519 private key. */
export function signingKeyFingerprint(pem: string): string {
  return fingerprintOf(createPublicKey(signingKeyOf(pem)));
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

/**
 * The seal and its check under the private key. The secret is derived from
 * the key, under a name of its own: it is kept nowhere else, and whoever can
 * read it could sign anyway.
 */
function sealsOf(privateKey: KeyObject): Pick<ReceiptSigner, 'seal' | 'verifySeal'> {
  const secret = createHash('sha256').update('toolgate journal seal key\n').update(privateKey.export({ type: 'pkcs8', format: 'der' })).digest();
  const seal = (hash: string): string => `${SEAL_PREFIX}${createHmac('sha256', secret).update(hash).digest('hex')}`;
  return {
    seal,
    verifySeal: (hash, given) => {
      const expected = Buffer.from(seal(hash));
      const found = Buffer.from(given);
      return found.length === expected.length && timingSafeEqual(found, expected);
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
 * not a regular file, or is readable by group or others is refused, and so
 * is a key folder that is a link, a file, another user's or world-writable.
 */
export function loadReceiptSigner(keyDir: string): ReceiptSigner & { readonly keyCreated: boolean } {
  // A key folder shipped as a link (to a folder the repository publishes) would have the private key made there.
  const problem = prepareOwnFolder(keyDir, true);
  if (problem !== undefined) throw new ConfigurationError('signing key', `folder ${keyDir} ${problem}: the key is made and kept there`);
  const path = join(keyDir, SIGNING_KEY_FILE);
  // A key made now is kept only if no key is there yet; a process that lost the race to create it uses the winner's.
  const generated = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keyCreated = createFileIfAbsentSync(path, generated, { mode: 0o600 }) === 'created';
  const privateKey = signingKeyOf(keyCreated ? generated : readSigningKeyFile(path));
  return { ...createVerifier(createPublicKey(privateKey)), ...sealsOf(privateKey), keyCreated, sign: (hash) => sign(null, Buffer.from(hash, 'hex'), privateKey).toString('base64') };
}

/**
 * A verifier that checks seals as well as signatures, from the signing key
 * already in `keyDir` (never one made now): what a holder of the key who
 * only reads the journal checks it with (`toolgate audit verify`).
 */
export function loadSealVerifier(keyDir: string): ReceiptVerifier {
  return sealVerifierFromPem(readSigningKeyFile(join(keyDir, SIGNING_KEY_FILE)));
}

/**
 * The same verifier from the signing key's text, read once by the caller:
 * what it checked the key by (`toolgate audit verify` vouches for it first)
 * is then the key every signature and seal is checked with.
 */
export function sealVerifierFromPem(pem: string): ReceiptVerifier {
  const privateKey = signingKeyOf(pem);
  return { ...createVerifier(createPublicKey(privateKey)), verifySeal: sealsOf(privateKey).verifySeal };
}

function signingKeyOf(pem: string): KeyObject {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new ConfigurationError('signing key', 'must be an Ed25519 private key');
  return privateKey;
}

/**
 * The text of the signing key at `path`, read through no link: a key that is
 * a symlink or not a regular file, or that group or others may read or
 * write, is refused (`ConfigurationError`); a missing one throws `ENOENT`.
 */
export function readSigningKeyFile(path: string): string {
  const link = lstatSync(path);
  if (link.isSymbolicLink() || !link.isFile()) throw new ConfigurationError('signing key', 'must be a regular file, not a link');
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ConfigurationError('signing key', 'must be a regular file, not a link');
    if ((stat.mode & 0o077) !== 0) throw new ConfigurationError('signing key', 'must not be readable or writable by group or others (mode 0600)');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
