import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { canonicalJson, ConfigurationError } from '../../core/internal.js';
import { parseJsonOrThrow } from '../../core/errors/parse-json-or-throw.js';
import type { ReceiptSigner, ReceiptVerifier } from './receipt-signer.js';
import { writeFileAtomicSync } from '../../node/fs/write-file-atomic.js';

/**
 * The chain head recorded outside the journal file: `rows` is the chain's
 * length (the sequence number of its head row), `head` that row's hash,
 * `journal` the file's id (`meta.journal_id`), `at` when it was written. With
 * signing on, `signature` is the journal key's Ed25519 signature over all of
 * it (`keyId` names the key).
 */
export interface JournalAnchor {
  readonly version: 1;
  readonly journal: string;
  readonly rows: number;
  readonly head: string;
  readonly at: number;
  readonly keyId?: string;
  readonly signature?: string;
}

/** Where a journal's anchor lives by default: beside it, `journal.db` → `journal.anchor`. */
export function anchorPathFor(journalPath: string): string {
  const name = basename(journalPath, extname(journalPath));
  return join(dirname(journalPath), `${name.length > 0 ? name : basename(journalPath)}.anchor`);
}

/** The anchor at `path`, or undefined when there is none. A file that is not an anchor is an error, never ignored. */
export function readJournalAnchor(path: string): JournalAnchor | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseAnchor(text);
}

export function parseAnchor(text: string): JournalAnchor {
  const parsed = parseJsonOrThrow(text, () => new ConfigurationError('anchor', 'is not JSON'));
  const anchor = parsed as Partial<Record<keyof JournalAnchor, unknown>> | null;
  const valid =
    typeof anchor === 'object' &&
    anchor !== null &&
    anchor.version === 1 &&
    typeof anchor.journal === 'string' &&
    Number.isSafeInteger(anchor.rows) &&
    (anchor.rows as number) >= 0 &&
    typeof anchor.head === 'string' &&
    /^[0-9a-f]{64}$/.test(anchor.head) &&
    Number.isFinite(anchor.at) &&
    (anchor.keyId === undefined || typeof anchor.keyId === 'string') &&
    (anchor.signature === undefined || typeof anchor.signature === 'string');
  if (!valid) throw new ConfigurationError('anchor', 'is not a toolgate journal anchor (version, journal, rows, head, at)');
  return anchor as JournalAnchor;
}

/** What the signature covers: every field but the signature, under a name no row hash can take. */
function anchorDigest(anchor: Omit<JournalAnchor, 'signature'>): string {
  const { version, journal, rows, head, at, keyId } = anchor;
  return createHash('sha256').update(canonicalJson({ type: 'toolgate-journal-anchor', version, journal, rows, head, at, keyId: keyId ?? null })).digest('hex');
}

/** A new anchor for `head`, signed when there is a signer. */
export function makeAnchor(fields: { journal: string; rows: number; head: string; at: number }, signer: ReceiptSigner | undefined): JournalAnchor {
  const unsigned = { version: 1 as const, ...fields, ...(signer === undefined ? {} : { keyId: signer.keyId }) };
  return signer === undefined ? unsigned : { ...unsigned, signature: signer.sign(anchorDigest(unsigned)) };
}

/** `signed` when the trusted key made the signature; otherwise what is wrong with it. */
export function anchorSignature(anchor: JournalAnchor, verifier: ReceiptVerifier): 'signed' | 'unsigned' | 'unknown key' | 'mismatch' {
  if (anchor.signature === undefined) return 'unsigned';
  if (anchor.keyId !== verifier.keyId) return 'unknown key';
  const { signature, ...fields } = anchor;
  return verifier.verify(anchorDigest(fields), signature) ? 'signed' : 'mismatch';
}

/**
 * Replace the anchor at `path` atomically: the whole text goes to a private
 * temporary file beside it (mode 0600, created exclusively, never through a
 * link), is flushed to disk, and is renamed over the old one, so a reader
 * sees the old anchor or the new one, never a part. A link planted at
 * `path` is refused rather than followed or replaced.
 */
export function writeJournalAnchor(path: string, anchor: JournalAnchor): void {
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true) throw new ConfigurationError('anchor', 'must not be a symbolic link');
  writeFileAtomicSync(path, `${JSON.stringify(anchor, null, 2)}\n`, { fsync: true });
}
