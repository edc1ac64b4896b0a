import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isPermissionDenied } from '../../node/errors/host-denial.js';
import { withLockFileSync } from '../../node/fs/with-lock-file.js';
import { writeFileAtomicSync } from '../../node/fs/write-file-atomic.js';
import { CliError } from '../cli-error.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { userStateFolder } from './gateway-host-options.js';

/**
 * What this user's toolgate wrote into a workspace's `.toolgate/`, vouched
 * for from the user's own toolgate folder: the sha256 of each file's text,
 * by its path. A workspace's state arrives with the repository too (an
 * archive keeps a file's mode 0600), and the file alone cannot say who wrote
 * it: a token its author knows, a console locator naming the author's page.
 * The user's folder is private to the gateway, so no tool writes a record.
 */
export interface StateRecord {
  /** Whether `text` is what this user's toolgate last wrote at `file`. */
  vouches(file: string, text: string): boolean;
  remember(file: string, text: string): void;
  forget(file: string): void;
}

/**
 * `http-tokens.json` (the workspace tokens) or `console-locators.json` (the
 * console locators) in `home`'s toolgate folder, each kept by the file's
 * path; or `journal-keys.json` (the journal signing keys), kept by the key's
 * own digest, so a workspace moved elsewhere keeps its key.
 */
export function stateRecord(config: ResolvedConfig, home: string, name: 'http-tokens.json' | 'console-locators.json' | 'journal-keys.json'): StateRecord {
  const record = recordFile(config, home, name);
  const read = (): Record<string, string> => Object.fromEntries(Object.entries(record.read()).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  if (name === 'journal-keys.json') {
    return {
      vouches: (_file, text) => read()[sha256(text)] !== undefined,
      remember: (file, text) => record.rewrite((entries) => (entries[sha256(text)] = resolve(file))),
      forget: (file) => record.rewrite((entries) => {
        for (const [digest, where] of Object.entries(entries)) if (where === resolve(file)) delete entries[digest];
      }),
    };
  }
  return {
    vouches: (file, text) => read()[resolve(file)] === sha256(text),
    remember: (file, text) => record.rewrite((entries) => (entries[resolve(file)] = sha256(text))),
    forget: (file) => {
      if (read()[resolve(file)] !== undefined) record.rewrite((entries) => delete entries[resolve(file)]);
    },
  };
}

/** A record in the user's toolgate folder: a JSON object, read whole and rewritten whole. */
export interface RecordFile {
  /** Its entries; none when it is missing or unreadable (nothing is vouched for: fails closed). */
  read(): Record<string, unknown>;
  /**
   * Rewritten whole, atomically, mode 0600, under a lock beside it: two
   * gateways starting at once, or `serve` beside `audit trust-key`, each
   * read, change and write the record, and without the lock one would drop
   * the other's entry.
   */
  rewrite(change: (entries: Record<string, unknown>) => void): void;
  /**
   * Run `action` while no other process of this user runs one for the same
   * record, under a lock of its own (a `rewrite` inside it takes the
   * other): a toolgate that makes a file and then records it does both in
   * here, so one that finds the file meanwhile and asks again in here finds
   * it recorded.
   */
  exclusively<T>(action: () => T): T;
}

/** The record `name` in `home`'s toolgate folder. */
export function recordFile(config: ResolvedConfig, home: string, name: string): RecordFile {
  const record = join(userStateFolder(config, home), name);
  return {
    read: () => readRecord(record),
    rewrite: (change) =>
      underLock(`${record}.lock`, () => {
        const entries = readRecord(record);
        change(entries);
        try {
          writeFileAtomicSync(record, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
        } catch (error) {
          throw unwritableFolder(dirname(record), error) ?? error;
        }
      }),
    exclusively: (action) => underLock(`${record}.exclusive.lock`, action),
  };
}

/**
 * Run `action` holding `lock`, in the user's toolgate folder (made if
 * missing). A folder where the lock cannot be taken is
 * `StateFolderUnwritable`; what `action` throws is its own.
 */
function underLock<T>(lock: string, action: () => T): T {
  let ran = false;
  try {
    mkdirSync(dirname(lock), { recursive: true, mode: 0o700 });
    return withLockFileSync(lock, () => {
      ran = true;
      return action();
    });
  } catch (error) {
    throw (ran ? undefined : unwritableFolder(dirname(lock), error)) ?? error;
  }
}

/**
 * A home where the record cannot be written: a service user's `/nonexistent`,
 * the `HOME` of root kept by `su`, one on a file system mounted read-only.
 * Such a home keeps no record, and nothing it should vouch for is vouched
 * for: the command stops with a configuration error naming `HOME`.
 */
export class StateFolderUnwritable extends CliError {
  /** The system's error code (`EACCES`, `EROFS`, …). */
  readonly errno: string;
  constructor(folder: string, errno: string, cause: unknown) {
    super('config', `${folder}: this user's toolgate folder, which records what its toolgate wrote in workspaces, cannot be written (${errno}): set HOME to a folder of this user's.`, { cause });
    this.errno = errno;
  }
}

/** The refusal of an error a folder that cannot be written gives; undefined for any other. */
function unwritableFolder(folder: string, error: unknown): StateFolderUnwritable | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // Node's recursive mkdir reports a parent it could not make (read-only, say) as ENOENT of the folder asked for.
  const unwritable = isPermissionDenied(error) || code === 'EROFS' || code === 'ENOENT' || code === 'ENOTDIR';
  return unwritable && code !== undefined ? new StateFolderUnwritable(folder, code, error) : undefined;
}

function readRecord(record: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(record, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    // Missing or unreadable: nothing is vouched for (fails closed).
    return {};
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
