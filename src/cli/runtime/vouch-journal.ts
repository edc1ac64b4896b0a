import { randomBytes } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname } from 'node:path';
import { anchorPathFor, createSqliteJournal, journalFilesProblem, readJournalAnchor, readJournalFile, type SqliteJournal, type SqliteJournalOptions } from '../../journal/sqlite/index.js';
import { ConfigurationError } from '../../core/internal.js';
import { moveAside } from '../../node/process/move-aside.js';
import { CliError } from '../cli-error.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { journalRecord, type JournalRecord, type RecordedHead } from './journal-record.js';
import { GENESIS_HASH } from '../../journal/sqlite/row-hash.js';

/**
 * A workspace can arrive with a journal its author wrote (an archive
 * unpacked, a folder copied; no git tracks it), or with files beside the
 * user's own that SQLite reads into it (a write-ahead log, a rollback
 * journal). Its receipts would pass for this user's history in the audit
 * trail and the console, the claims its author left open would hold this
 * user's actions back, and the gateway would write on after the author's
 * rows. So a journal is used only when it is one this user's toolgate made,
 * or the user adopted (`toolgate audit trust-journal`), as that toolgate
 * left it: `journalRecord` keeps the row each journal last ended on, and the
 * journal must still hold that row as written, its chain linking whole up
 * to it when a write-ahead log lies beside it. The CLI makes a journal with
 * an id it recorded first, and writes its first row at once, a
 * `journal-made` event holding a random nonce: from then on the row it ends
 * on is one no other file holds. The judgement is what a read-only
 * connection sees, before anything opens the journal to write.
 */
type Judgement = { readonly vouched: string } | { readonly unmade: true } | { readonly refused: CliError };

/** The first row of a journal the CLI makes: its nonce makes the row, and every row after it, one no other file holds. */
const MADE_EVENT = 'journal-made';

/**
 * Open the configuration's journal for a command that writes it, with
 * `options`: one already there must be this user's, as it was left (the one
 * opened must be the one judged). One not there yet, or an empty file, or a
 * journal that holds no row, no id this user's toolgate knows, and nothing
 * beside it that says a process has it open, is made anew while no other
 * toolgate of this user judges: what lay there is moved aside
 * (`<name>-held-by-toolgate`), a log and an anchor of none included, but
 * an anchor of a journal this user's toolgate made (that journal was
 * removed: the anchor stays as the evidence, and the new journal's keeper
 * says so). The row the journal ends on is recorded at the open and at
 * the close.
 */
export function openVouchedJournal(config: ResolvedConfig, options: Omit<SqliteJournalOptions, 'onClose' | 'journalId'>, home = homedir()): SqliteJournal {
  const file = config.journal.path;
  const record = journalRecord(config, home);
  const first = judgeJournal(file, record);
  if ('vouched' in first) return openAndRecord(file, record, options, first.vouched);
  // Judged again while no other toolgate of this user makes a journal: one that does records it before it lets go.
  return record.exclusively(() => {
    const found = judgeJournal(file, record);
    if ('vouched' in found) return openAndRecord(file, record, options, found.vouched);
    if ('refused' in found) throw found.refused;
    setAside(file, record);
    const id = randomBytes(16).toString('hex');
    record.remember(file, id, { seq: 0, hash: GENESIS_HASH });
    return openAndRecord(file, record, { ...options, journalId: id }, id, true);
  });
}

/** Record the row the journal ends on now (after a compaction took the recorded one out). */
export function rememberJournalHead(config: ResolvedConfig, journal: SqliteJournal, home = homedir()): void {
  const id = journal.journalId;
  if (id !== undefined) journalRecord(config, home).remember(config.journal.path, id, journal.head());
}

/** Throw unless the journal at the configuration's path, which is there, is this user's as it was left; its id when it is. */
export function refuseUnvouchedJournal(config: ResolvedConfig, home = homedir()): string {
  const file = config.journal.path;
  const record = journalRecord(config, home);
  const first = judgeJournal(file, record);
  const found = 'vouched' in first ? first : record.exclusively(() => judgeJournal(file, record));
  if ('vouched' in found) return found.vouched;
  throw 'refused' in found ? found.refused : new CliError('usage', `${file} holds no journal of this user's yet: it is made by the first governed call.`);
}

/** Whether the journal at `file` is this user's, as it was left, for a command that reports on it; why not, when it is not. */
export function journalTrust(config: ResolvedConfig, home = homedir()): { readonly trusted: boolean; readonly why?: string } {
  const found = judgeJournal(config.journal.path, journalRecord(config, home));
  return 'vouched' in found ? { trusted: true } : { trusted: false, why: 'refused' in found ? found.refused.message : `${config.journal.path} holds no journal of this user's.` };
}

function judgeJournal(file: string, record: JournalRecord): Judgement {
  // No journal there: what lies beside it (a log, an anchor) is no journal's, and is set aside as one is made.
  const stats = lstatSync(file, { throwIfNoEntry: false });
  if (stats === undefined || (stats.isFile() && stats.nlink === 1 && stats.size === 0 && !isThere(`${file}-wal`))) return { unmade: true };
  // A journal this user's toolgate began to make here and was stopped making (as it turned the file to WAL, before its
  // schema and id or its first row were written, or before it recorded that row) holds nothing of anyone's, whatever
  // lies beside it: it is made anew.
  if (record.makingAt(file)) return { unmade: true };
  const problem = journalFilesProblem(file);
  if (problem !== undefined) return { refused: new CliError('config', `${dirname(file)}: ${problem}. Move it aside and start again.`) };
  try {
    const reading = readJournalFile(file);
    if (reading === undefined) return { refused: new CliError('config', `${file} cannot be read as a journal: move it aside and start again.`) };
    const id = reading.id;
    const rows = id === undefined ? [] : record.headsOf(id).filter((head) => head.seq > 0);
    if (id === undefined || rows.length === 0) return unknownJournal(file, reading.head.seq, id);
    // A log beside the file can hold any page of it: then every row up to the recorded one must link.
    const walk = (lstatSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0;
    const held = readJournalFile(file, { heads: rows, walk });
    return held?.id === id && held.holds === true ? { vouched: id } : { refused: notAsLeft(file, id, rows[0] as RecordedHead) };
  } catch (error) {
    if (error instanceof ConfigurationError) return { refused: new CliError('config', `${file} ${error.problemText}.`, { cause: error }) };
    throw error;
  }
}

/**
 * A journal whose id this user's toolgate does not know: one with rows is
 * another's; one with none is cleared for a journal of this user's, unless a
 * log or shared memory beside it says a process may have it open (a
 * program of the user's, through the library).
 */
function unknownJournal(file: string, rows: number, id: string | undefined): Judgement {
  if (rows > 0) return { refused: notThisUsers(file, id) };
  if (isThere(`${file}-wal`) || isThere(`${file}-shm`)) {
    return { refused: new CliError('config', `${file}${id === undefined ? '' : ` (journal ${id})`} holds no row, and this user's toolgate did not make it; its log and shared memory lie beside it, so a process may have it open. If none does, move it aside with the files beside it and start again.`) };
  }
  return { unmade: true };
}

/**
 * Open the journal, check it is journal `id`, write its first row when it
 * is made now (`made`), and record the row it ends on, now and at its close.
 */
function openAndRecord(file: string, record: JournalRecord, options: Omit<SqliteJournalOptions, 'onClose'>, id: string, made = false): SqliteJournal {
  let recorded: string | undefined;
  const journal = createSqliteJournal(file, {
    ...options,
    onClose: (head) => {
      try {
        if (recorded !== undefined) record.remember(file, recorded, head);
      } catch {
        // The row recorded at the open still vouches for the journal, which only grew since.
      }
    },
  });
  try {
    if (journal.journalId !== id) throw new CliError('config', `${file} changed while it was opened: start again.`);
    if (made) {
      journal.append({ type: MADE_EVENT, at: Date.now(), data: { nonce: randomBytes(16).toString('hex') } }).catch(() => undefined);
      // Written now: the row the journal is recorded by is this one.
      journal.flush();
    }
    record.remember(file, id, journal.head());
    recorded = id;
    return journal;
  } catch (error) {
    journal.close();
    throw error;
  }
}

/**
 * What lies where a journal is made, moved aside: a file that holds no
 * journal, and the logs of none. So is an anchor, but one of a journal this
 * user's toolgate made: that journal was removed, and its anchor stays as
 * the evidence (the new journal's keeper leaves it, and says so).
 */
function setAside(file: string, record: JournalRecord): void {
  const anchor = anchorPathFor(file);
  const ownAnchor = anchorOfOwnJournal(anchor, record);
  for (const entry of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`, ...(ownAnchor ? [] : [anchor])]) {
    if (lstatSync(entry, { throwIfNoEntry: false }) === undefined) continue;
    if (moveAside(entry, `${basename(entry)}-held-by-toolgate`, dirname(file)) === 'failed') throw new CliError('config', `${entry} lies where the journal is made, and cannot be moved aside: move it and start again.`);
  }
}

/** Whether the anchor at `anchor` names a journal this user's toolgate made or adopted, with rows; a file that is no anchor does not. */
function anchorOfOwnJournal(anchor: string, record: JournalRecord): boolean {
  try {
    const id = readJournalAnchor(anchor)?.journal;
    // One this toolgate began to make and was stopped making held no row: its anchor is evidence of nothing.
    return id !== undefined && record.headsOf(id).some((head) => head.seq > 0);
  } catch {
    return false;
  }
}

function notThisUsers(file: string, id: string | undefined): CliError {
  return new CliError(
    'config',
    `${file}${id === undefined ? '' : ` (journal ${id})`} was not made by this user's toolgate: a workspace can arrive with a journal its author wrote (an archive, a copied folder), whose receipts would pass for your history and whose open claims would hold your actions back. Move the journal aside with the files beside it and start again, or, if your toolgate wrote it, adopt it with \`toolgate audit trust-journal\`.`,
  );
}

function notAsLeft(file: string, id: string, head: RecordedHead): CliError {
  return new CliError(
    'config',
    `${file} (journal ${id}) is not as this user's toolgate left it: it no longer holds row #${String(head.seq)}, on which it ended, as written, or its rows up to it no longer link. A file laid beside it (a write-ahead log) or in its place changed it, or rows were cut from its end. Move the journal aside with the files beside it and start again; \`toolgate audit verify\` names where its chain breaks. If it is your own journal as a power cut or a restore left it, check it so, then adopt it as it is now (\`toolgate audit trust-journal\`).`,
  );
}

function isThere(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}
