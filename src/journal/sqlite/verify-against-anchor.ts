import type Database from 'better-sqlite3';
import { describeAnchorCase, type AnchorCase } from './describe-anchor-case.js';
import { anchorSignature, type JournalAnchor } from './journal-anchor.js';
import type { ReceiptVerifier } from './receipt-signer.js';
import { journalIdOf } from './schema.js';
import { verifyChain, type SqliteVerifyResult, type VerifyOptions } from './verify-chain.js';

/** What the anchor comparison found, beside the chain walk's own result. */
export interface AnchorFinding {
  readonly case: AnchorCase;
  /** One sentence naming the case and its counts. */
  readonly message: string;
  /** The chain length the anchor recorded. */
  readonly anchoredRows: number;
}

export type AnchoredVerifyResult = SqliteVerifyResult & { readonly anchor: AnchorFinding };

/**
 * Verify the chain against an anchor kept outside the file. The file must be
 * the journal the anchor was taken from (its id), the anchor must carry the
 * journal key's signature when the journal verifies with a key, and the walk
 * must find the anchored head unchanged (`expectedHead`). A failed anchor
 * check fails the result with `firstBadRow.table` `anchor`, unless the chain
 * itself broke first (that row is named, and `anchor` still says what the
 * comparison found). Rows past the anchor pass, unless `strict`.
 */
export function verifyAgainstAnchor(
  db: Database.Database,
  anchor: JournalAnchor,
  options: VerifyOptions & { readonly verifier: ReceiptVerifier | undefined; readonly strict?: boolean },
): AnchoredVerifyResult {
  const journalId = journalIdOf(db);
  // A replaced file or a forged anchor makes comparing heads meaningless: walk the chain alone.
  const trust = journalId !== anchor.journal ? { found: 'replaced' as const } : signatureCase(anchor, options.verifier);
  const walked = verifyChain(db, { ...options, ...(trust === undefined ? { expectedHead: { seq: anchor.rows, hash: anchor.head } } : {}) });
  const found = trust ?? { found: headCase(walked, anchor), problem: walked.firstBadRow?.problem };
  const finding: AnchorFinding = { case: found.found, message: describeAnchorCase(found.found, anchor, { rows: walked.head.seq, journalId, ...(found.problem === undefined ? {} : { problem: found.problem }) }), anchoredRows: anchor.rows };
  const passes = finding.case === 'matches' || (finding.case === 'beyond' && options.strict !== true);
  // A chain broken on its own is named by its row; an anchor failure by the anchored position.
  if (passes || (!walked.ok && walked.anchored === undefined)) return { ...walked, anchor: finding };
  const { anchored: _anchored, ...rest } = walked;
  return { ...rest, ok: false, firstBadRow: { table: 'anchor', id: anchor.rows, problem: finding.message }, anchor: finding };
}

function signatureCase(anchor: JournalAnchor, verifier: ReceiptVerifier | undefined): { found: AnchorCase; problem?: string } | undefined {
  // Without a key nothing can be checked: an unsigned journal's anchor is as strong as the place it is kept.
  if (verifier === undefined) return undefined;
  const signature = anchorSignature(anchor, verifier);
  if (signature === 'signed') return undefined;
  return signature === 'unsigned' ? { found: 'unsigned' } : { found: 'bad-signature', problem: signature === 'unknown key' ? 'signed with an unknown key' : 'signature mismatch' };
}

function headCase(walked: SqliteVerifyResult, anchor: JournalAnchor): AnchorCase {
  if (walked.anchored === 'shorter') return 'cut-tail';
  if (walked.anchored === 'differs') return 'differs';
  if (walked.anchored === 'unvouched') return 'unvouched';
  // Broken on its own: past the anchored row it matched (a mismatch there fails first); before it, it was never compared.
  if (!walked.ok) return walked.head.seq >= anchor.rows ? 'matches' : 'not-reached';
  return walked.head.seq > anchor.rows ? 'beyond' : 'matches';
}
