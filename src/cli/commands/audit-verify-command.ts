import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { UnresolvedClaim } from '../../core/internal.js';
import {
  anchorPathFor,
  createSqliteJournal,
  describeVerification,
  journalFilesProblem,
  readJournalAnchor,
  readJournalFile,
  verifyJournalFile,
  type AnchoredVerifyResult,
  type AnchorFinding,
  type JournalAnchor,
  type SqliteVerifyResult,
} from '../../journal/sqlite/index.js';
import { CliError } from '../cli-error.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { journalTrust } from '../runtime/vouch-journal.js';
import { signingKeyToVerify } from '../runtime/vouch-signing-key.js';

export interface AuditVerifyOptions {
  /** An anchor file to check against; `false` skips the anchor; undefined: the journal's own, when it exists. */
  readonly anchor?: string | false;
  /** Rows beyond the anchor, and a missing anchor, fail. */
  readonly strict?: boolean;
}

/**
 * `toolgate audit verify [--anchor FILE | --no-anchor] [--strict]`: walk the
 * hash chain (and signatures) and compare it with the anchor (the journal's
 * own `journal.anchor` by default); a broken chain or a journal that does not
 * match its anchor exits non-zero, naming the first bad row or the case.
 * So does a journal that is not this user's as its toolgate left it (one it
 * neither made nor adopted, or one the files beside it changed:
 * `journal.trusted: false`) and, with `journal.sign`, a signing key it did
 * not make nor record (`key.trusted: false`), the chain's findings reported
 * all the same. Such a journal is walked through a read-only connection, so
 * verifying it never folds a log laid beside it into the file.
 */
export async function runAuditVerify(config: ResolvedConfig, options: AuditVerifyOptions, output: CliOutput): Promise<number> {
  const file = config.journal.path;
  if (!existsSync(file)) throw new CliError('usage', `No journal at ${file} yet.`);
  // A file beside it that SQLite would read into it, read-only too: what is verified would not be the journal.
  const beside = journalFilesProblem(file);
  if (beside !== undefined) throw new CliError('config', `${dirname(file)}: ${beside}. Move it aside, then verify.`);
  const anchorFile = options.anchor === false ? undefined : options.anchor === undefined ? anchorPathFor(file) : resolve(options.anchor);
  const anchor = anchorFile === undefined ? undefined : loadAnchor(anchorFile, options.anchor !== undefined);
  const progress = output.progress('verifying the journal chain');
  // Read once, and checked with as read: a key swapped after this is not the one the signatures are checked with.
  const key = config.journal.sign ? signingKeyToVerify(config) : undefined;
  const trust = journalTrust(config);
  const walk = { ...(anchor?.anchor === undefined ? {} : { anchor: anchor.anchor, strictAnchor: options.strict === true }), ...(key === undefined ? {} : { verifyKey: key.pem }) };
  const { result, unresolved } = trust.trusted ? await verifyOpened(file, walk) : { result: verifyJournalFile(file, walk), unresolved: undefined };
  progress.done();
  // Without an anchor a cut tail or a replaced file cannot be seen; strict makes that a failure too.
  const missing = anchorFile !== undefined && anchor?.anchor === undefined;
  // Signatures under a key this user's toolgate did not make prove only that its holder wrote the rows, and a whole chain
  // in a journal a workspace arrived with only that its author wrote it.
  const untrusted = key !== undefined && !key.trusted;
  const journalReport = { file, id: readJournalFile(file)?.id ?? null, trusted: trust.trusted };
  const ok = result.ok && !(missing && options.strict === true) && !untrusted && trust.trusted;
  const finding = 'anchor' in result ? (result as AnchoredVerifyResult).anchor : undefined;
  const anchorReport = anchorFile === undefined ? undefined : { file: anchorFile, ...(finding === undefined ? { missing: true } : finding) };
  const keyReport = key === undefined ? undefined : { file: key.file, trusted: key.trusted, fingerprint: key.fingerprint };
  output.result({ ...result, ok, journal: journalReport, ...(keyReport === undefined ? {} : { key: keyReport }), ...(anchorReport === undefined ? {} : { anchor: anchorReport }), ...(unresolved === undefined ? {} : { unresolved }) }, () =>
    [
      `${describeVerification(result)}${untrusted && result.ok ? ', under a signing key this user does not vouch for' : ''}`,
      ...(trust.why === undefined ? [] : [`failed: ${trust.why}`]),
      ...(keyReport === undefined ? [] : [keyLine(keyReport)]),
      ...(anchorFile === undefined ? ['anchor: not checked (--no-anchor)'] : []),
      ...(missing ? [`${options.strict === true ? 'failed' : 'warning'}: no anchor at ${anchorFile}: a cut tail or a replaced file cannot be detected`] : []),
      ...(finding === undefined ? [] : [anchorLine(finding, anchorFile as string)]),
      ...(unresolved ?? []).map((claim) => `unresolved claim ${claim.claimId}: ${claim.toolName} (call ${claim.callId}) since ${new Date(claim.startedAt).toISOString()}; see \`toolgate audit unresolved\``),
    ].join('\n'),
  );
  return ok ? 0 : 1;
}

/**
 * The walk through the journal opened as this user's, and its open claims.
 * Opened without `anchor`: verifying never writes the anchor it checks.
 * With the key, the seals a running writer left past its last signature are
 * checked too; the key is never made, nor signed with.
 */
async function verifyOpened(file: string, walk: { readonly anchor?: JournalAnchor; readonly strictAnchor?: boolean; readonly verifyKey?: string }): Promise<{ result: SqliteVerifyResult; unresolved: readonly UnresolvedClaim[] }> {
  const journal = createSqliteJournal(file, { onUnresolved: () => undefined, ...(walk.verifyKey === undefined ? {} : { verifyKey: walk.verifyKey }) });
  try {
    const result = walk.anchor === undefined ? await journal.verify() : await journal.verify({ anchor: walk.anchor, strictAnchor: walk.strictAnchor === true });
    return { result, unresolved: await journal.unresolved() };
  } finally {
    journal.close();
  }
}

function keyLine(key: { readonly file: string; readonly trusted: boolean; readonly fingerprint: string }): string {
  if (key.trusted) return `signing key ${key.file}: ${key.fingerprint}, this user's`;
  return `failed: the signing key ${key.file} (${key.fingerprint}) was not made by this user's toolgate: a repository can ship a journal with the key that signed it, and its signatures then prove nothing. If you made this key, record it with \`toolgate audit trust-key\`.`;
}

/** The anchor file, read. A file that is there but not an anchor is a failure to report, never a reason to skip the check. */
function loadAnchor(file: string, named: boolean): { anchor: JournalAnchor | undefined } {
  let anchor: JournalAnchor | undefined;
  try {
    anchor = readJournalAnchor(file);
  } catch (error) {
    throw new CliError('tool', `The anchor ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (anchor === undefined && named) throw new CliError('usage', `No anchor at ${file}.`);
  return { anchor };
}

function anchorLine(finding: AnchorFinding, file: string): string {
  if (finding.case === 'matches') return `anchor ${file}: ${finding.message}`;
  if (finding.case === 'beyond') return `warning: anchor ${file}: ${finding.message}`;
  return `anchor ${file}: ${finding.message}`;
}
