import Database from 'better-sqlite3';
import type { JournalAnchor } from './journal-anchor.js';
import { sealVerifierFromPem } from './receipt-signer.js';
import { verifyAgainstAnchor } from './verify-against-anchor.js';
import { verifyChain, type SqliteVerifyResult } from './verify-chain.js';

/**
 * Verify the journal file at `path` as `SqliteJournal.verify` does, through
 * a read-only connection that changes nothing in it: for a journal no
 * caller should open to write (one the files beside it may have changed,
 * whose write-ahead log a writer's close would fold into the file for
 * good). `verifyKey`, the signing key as PEM text, checks signatures and
 * seals; `anchor`, as `verify({ anchor, strictAnchor })`.
 */
export function verifyJournalFile(path: string, options: { readonly anchor?: JournalAnchor; readonly strictAnchor?: boolean; readonly verifyKey?: string } = {}): SqliteVerifyResult {
  const verifier = options.verifyKey === undefined ? undefined : sealVerifierFromPem(options.verifyKey);
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return options.anchor === undefined ? verifyChain(db, { verifier }) : verifyAgainstAnchor(db, options.anchor, { verifier, ...(options.strictAnchor === undefined ? {} : { strict: options.strictAnchor }) });
  } finally {
    db.close();
  }
}
