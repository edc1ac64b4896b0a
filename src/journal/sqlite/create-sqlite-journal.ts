import { chmodSync, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigurationError, type UnresolvedClaim } from '../../core/internal.js';
import { AnchorKeeper } from './anchor-keeper.js';
import type { ChainHead } from './chain-types.js';
import { ChainStore } from './chain-store.js';
import { DEFAULT_SIGN_EVERY_MS } from './commit-signing.js';
import { loadReceiptSigner, loadSealVerifier, sealVerifierFromPem, verifierFromPem, type ReceiptVerifier } from './receipt-signer.js';
import { ensureJournalId, migrateSchema } from './schema.js';
import { SqliteJournal } from './sqlite-journal.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { schemaProblem } from './verify-chain.js';

export interface SqliteJournalOptions {
  /** Where `.toolgate/journal.db` lives when no path is given. Default: the current directory. */
  readonly workspace?: string;
  /**
   * Sign the chain with an Ed25519 key. `true` uses (and on first use
   * creates, mode 0600) `<journal dir>/keys/journal-ed25519.pem`; `keyDir`
   * picks the directory. Every commit ends on a row the key vouches for: one
   * commit in every `signEveryMs` (default 100) is Ed25519-signed, as is the
   * last one before writing stops and the last at close; the commits between
   * are sealed (HMAC-SHA256 under a secret derived from the key, which only
   * a holder of the key checks). `signEveryMs: 0` signs every commit.
   */
  readonly sign?: boolean | { readonly keyDir?: string; readonly signEveryMs?: number };
  /**
   * Verify signatures with this public key (PEM) instead of the signing key:
   * an auditor's view. A public key checks no seal: the rows past the last
   * signature, sealed, do not verify until a signed row covers them.
   */
  readonly publicKey?: string;
  /**
   * Verify with the signing key already in this folder, seals included, and
   * never sign or make a key: a holder of the key who only reads the journal.
   */
  readonly verifyKeyDir?: string;
  /**
   * Verify with this signing key (the Ed25519 private key as PEM text), seals
   * included, and never sign: as `verifyKeyDir`, for a caller that read the
   * key once and checked it (whose it is) before the journal uses it.
   */
  readonly verifyKey?: string;
  /**
   * `normal` (default): a committed claim survives a process crash; an OS
   * crash or power loss may lose the last transactions. `full`: fsync on every
   * commit, which survives power loss too, at a large cost per write.
   */
  readonly synchronous?: 'normal' | 'full';
  /** How long a writer waits for another process's write lock. Default 10 s. */
  readonly busyTimeoutMs?: number;
  /** Journal every call, tier `none` as `record` (a recording session for replay). Default: by tier. */
  readonly recordAll?: boolean;
  /**
   * The largest result value, as JSON, a receipt records whole. A larger
   * one is recorded as not kept (`valueNotKept`) beside the call's content,
   * receipt and attachments, and the call is not answered from the
   * recording: a retry or replay of it is refused (`REPLAY_MISS`,
   * `value_not_kept`), never run again. Without it a model that reads a 10
   * MB file over and over writes 10 MB to the journal each time; at 1 MiB,
   * 48 reads of a 1 MB file still wrote 84 MB. Default 64 KiB: with the
   * content the model read (32 KiB by default), a read adds at most about
   * 100 KB.
   */
  readonly maxRecordedValueBytes?: number;
  /** Called once at open with the claims a crash left unresolved. Default: a warning on the console when there are any. */
  readonly onUnresolved?: (claims: readonly UnresolvedClaim[]) => void;
  /**
   * Keep an anchor of the chain head in this file, outside the database
   * (`anchorPathFor(path)` is the usual place: `.toolgate/journal.anchor`
   * beside `.toolgate/journal.db`). It is written at open, after every
   * commit batch and at close, atomically, mode 0600, signed when signing is
   * on; it never goes backwards, and once the file no longer holds the
   * anchored head it is left as it is. `verify({ anchor })` checks against it.
   */
  readonly anchor?: string;
  /** Called when the anchor cannot be kept (it no longer matches the file, or a write failed). Default: a warning on the console. */
  readonly onAnchorProblem?: (problem: string) => void;
  /**
   * Called as the journal closes, after its last commit, with the head it
   * ends on: a caller that keeps its own record of the head (the CLI does, to
   * tell its own journal from one changed or put in its place).
   */
  readonly onClose?: (head: ChainHead) => void;
  /**
   * The id (`journalId`, 32 lowercase hex digits) a journal made by this open
   * is given; one already there keeps its own. Default: a random one. A
   * caller that records the journals it makes records the id before the
   * file exists (the CLI does: a journal it was stopped making is then its
   * own).
   */
  readonly journalId?: string;
}

/** What `createSqliteJournal` makes of its options for the journal it opens. */
export interface SqliteJournalSettings {
  readonly coverage: 'tiered' | 'all';
  readonly maxRecordedValueBytes: number;
  readonly verifier: ReceiptVerifier | undefined;
  readonly anchor?: AnchorKeeper | undefined;
  readonly signingKeyCreated?: boolean;
}

export const DEFAULT_JOURNAL_PATH = join('.toolgate', 'journal.db');
const DEFAULT_MAX_RECORDED_VALUE_BYTES = 64 * 1024;

/**
 * Open (creating if needed) the embedded SQLite journal: WAL mode, schema
 * migrations in code, append-only hash-chained tables, optional Ed25519
 * signatures and seals (`sign`). The file and its directory are private to the user.
 */
export function createSqliteJournal(path?: string, options: SqliteJournalOptions = {}): SqliteJournal {
  if (path !== undefined && (typeof path !== 'string' || path.length === 0 || path.includes('\0'))) throw new ConfigurationError('path', 'must be a non-empty file path');
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) throw new ConfigurationError('busyTimeoutMs', 'must be a non-negative integer');
  const maxRecordedValueBytes = options.maxRecordedValueBytes ?? DEFAULT_MAX_RECORDED_VALUE_BYTES;
  if (!Number.isSafeInteger(maxRecordedValueBytes) || maxRecordedValueBytes < 1) throw new ConfigurationError('maxRecordedValueBytes', 'must be a positive integer');
  if (options.synchronous !== undefined && options.synchronous !== 'normal' && options.synchronous !== 'full') throw new ConfigurationError('synchronous', 'must be "normal" or "full"');
  if (options.journalId !== undefined && !/^[0-9a-f]{32}$/.test(options.journalId)) throw new ConfigurationError('journalId', 'must be 32 lowercase hexadecimal digits');
  const file = resolve(path ?? join(options.workspace ?? process.cwd(), DEFAULT_JOURNAL_PATH));
  if (path === undefined && options.workspace !== undefined && !isAbsolute(options.workspace)) throw new ConfigurationError('workspace', 'must be an absolute path');
  const directory = dirname(file);
  if (!existsSync(directory)) mkdirSync(directory, { recursive: true, mode: 0o700 });
  const problem = membersProblem(file);
  if (problem !== undefined) throw new ConfigurationError('path', problem);
  createPrivateFile(file);
  const db = new Database(file, { timeout: busyTimeoutMs });
  let checkpointer: WalCheckpointer | undefined;
  try {
    enableWal(db, busyTimeoutMs);
    const synchronous = options.synchronous === 'full' ? 'FULL' : 'NORMAL';
    db.pragma(`synchronous = ${synchronous}`);
    // The id with the schema, in one transaction: a process killed between them left a journal with no id.
    db.transaction(() => {
      migrateSchema(db);
      ensureJournalId(db, options.journalId);
    }).immediate();
    const signing = options.sign === undefined || options.sign === false ? undefined : options.sign === true ? {} : options.sign;
    const signer = signing === undefined ? undefined : loadReceiptSigner(signing.keyDir ?? join(directory, 'keys'));
    const verifier: ReceiptVerifier | undefined =
      options.publicKey !== undefined
        ? verifierFromPem(options.publicKey)
        : options.verifyKey !== undefined
          ? sealVerifierFromPem(options.verifyKey)
          : options.verifyKeyDir !== undefined
            ? loadSealVerifier(options.verifyKeyDir)
            : signer;
    const store = new ChainStore(db, signer, checkSignEveryMs(signing?.signEveryMs));
    const anchor = options.anchor === undefined ? undefined : new AnchorKeeper(store, resolve(options.anchor), options.onAnchorProblem ?? ((problem) => console.warn(`toolgate: ${problem}`)));
    // Under NORMAL checkpoints run on a worker thread: a commit never waits for the disk on the log's behalf.
    if (synchronous === 'NORMAL') {
      const walCheckpointer = new WalCheckpointer(db, file);
      checkpointer = walCheckpointer;
      store.onCommit(() => walCheckpointer.committed());
      store.onClose(() => walCheckpointer.close());
    }
    const journal = new SqliteJournal(file, store, { coverage: options.recordAll === true ? 'all' : 'tiered', maxRecordedValueBytes, verifier, anchor, signingKeyCreated: signer?.keyCreated === true });
    if (signer !== undefined) {
      // The key vouches for its head only: the rows below must chain up to it, or the journal would act on a forged one.
      // Every row is walked now, once, and handed to the journal's mirrors (`ChainStore.catchUp`); from then on each row
      // another connection commits, before the journal reads it.
      const schema = schemaProblem(db);
      if (schema !== undefined) store.refuse(`${schema.table} #${schema.id}: ${schema.problem}`);
      // A history older than the key is signed over now, once: from here on the journal links only onto rows its key signed.
      // A key made by this open vouches for no row yet: the history is taken as it stands, not a tail named to an operator.
      else if (store.catchUp() && signer.keyCreated) store.adoptHistory('signing key created');
    }
    if (anchor !== undefined) store.onCommit(() => anchor.committed());
    const onClose = options.onClose;
    // After the last commit and its anchor, before the connection closes; a callback that throws keeps it open for none.
    if (onClose !== undefined) {
      store.onClose(() => {
        try {
          onClose(store.head());
        } catch (error) {
          console.warn('toolgate: the journal\'s onClose threw', error);
        }
      });
    }
    anchor?.flush();
    reportUnresolved(journal.unresolvedNow(), options.onUnresolved);
    return journal;
  } catch (error) {
    checkpointer?.close();
    db.close();
    throw error;
  }
}

function checkSignEveryMs(value: number | undefined): number {
  if (value === undefined) return DEFAULT_SIGN_EVERY_MS;
  if (!Number.isSafeInteger(value) || value < 0 || value > 60_000) throw new ConfigurationError('sign.signEveryMs', 'must be a whole number of milliseconds from 0 to 60,000');
  return value;
}

/**
 * Switch the file to WAL. When two processes open a fresh file at once, SQLite
 * refuses one of them SQLITE_BUSY at once, without waiting (its busy handler
 * would deadlock there): retry until the busy timeout, as any other write waits.
 */
function enableWal(db: Database.Database, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let delayMs = 1; ; delayMs = Math.min(delayMs * 2, 50)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, delayMs); // opening is synchronous; so is this short wait
    }
  }
}

/** Create the file with mode 0600 before SQLite opens it (its -wal and -shm inherit the mode), so it is never briefly world-readable. */
function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function reportUnresolved(claims: readonly UnresolvedClaim[], report: SqliteJournalOptions['onUnresolved']): void {
  if (report !== undefined) {
    report(claims);
    return;
  }
  if (claims.length > 0) {
    console.warn(`toolgate: the journal holds ${claims.length} unresolved claim(s): a call may have started and never settled. They are not re-run; list them with journal.unresolved() and resolve each one.`);
  }
}

/** Why one of the journal's own files (the database, its write-ahead log, its shared memory) cannot be opened; see `journalFileProblem`. */
function membersProblem(file: string): string | undefined {
  for (const member of [file, `${file}-wal`, `${file}-shm`]) {
    const problem = journalFileProblem(member);
    if (problem !== undefined) return `${basename(member)} ${problem}`;
  }
  return undefined;
}

/**
 * Why the journal at `file` is not to be opened as the files beside it
 * stand; undefined when it can be. Each of its own files must be fit, as
 * `createSqliteJournal` requires. And SQLite reads more than the file: it
 * rolls a rollback journal (`-journal`) it finds beside it into the file,
 * and replays a write-ahead log (`-wal`) into it, and neither says which
 * file it belongs to. This journal runs in WAL mode: it makes a rollback
 * journal only for a moment, as a new file turns to WAL, so one beside a
 * file that holds pages is none of its own, but for a process making the
 * file this moment; and a log beside a file that is not there yet, or is
 * empty, was written by no journal there. A workspace can arrive with
 * either, its pages an author's. `createSqliteJournal` does not ask this of
 * the files beside it, as processes that make the same journal at once see
 * each other's moment; a caller that makes its journals one at a time (the
 * CLI, under a lock) asks it before it opens one.
 */
export function journalFilesProblem(file: string): string | undefined {
  const own = membersProblem(file);
  if (own !== undefined) return own;
  const pages = lstatSync(file, { throwIfNoEntry: false })?.size ?? 0;
  if (pages > 0 && lstatSync(`${file}-journal`, { throwIfNoEntry: false }) !== undefined) return `${basename(file)}-journal is there: a rollback journal is none of this journal's own (it runs in WAL mode), and SQLite would roll its pages into the file`;
  if (pages === 0 && (lstatSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) return `${basename(file)}-wal is there without the journal it was written for: SQLite would replay it into the journal it makes`;
  return undefined;
}

/**
 * Why a file of the journal (the database, its write-ahead log, its shared
 * memory) found already there cannot be opened. A planted link would send
 * receipts, and the claims that guard effects, somewhere else, and another
 * hard link (a workspace file that tools read, `grep -r` never naming it)
 * would show every receipt and recorded result under that name. A mode that
 * lets others read it (a file a clone or a backup left 0644) is narrowed to
 * 0600 before anything is written; one that cannot be is refused.
 */
function journalFileProblem(member: string): string | undefined {
  const stats = lstatSync(member, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  if (stats.isSymbolicLink()) return 'must not be a symbolic link';
  // A named pipe there would hold the open (or SQLite's first read) for good, and a device is no journal.
  if (!stats.isFile()) return 'must be a regular file';
  if (stats.nlink > 1) return 'must not have another hard link (another name of the file would show every receipt)';
  if ((stats.mode & 0o077) === 0) return undefined;
  try {
    chmodSync(member, 0o600);
    return undefined;
  } catch {
    return 'is readable or writable by group or others and cannot be made private (mode 0600)';
  }
}
