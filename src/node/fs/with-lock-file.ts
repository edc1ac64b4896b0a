import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, openSync, readSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { ToolgateError } from '../../core/internal.js';
import { isProcessAlive } from '../process/is-process-alive.js';
import { createFileIfAbsentSync } from './create-file-if-absent.js';

export interface LockFileOptions {
  /** How long to wait for another holder before giving up (`LockFileTimeoutError`). Default 10 s. */
  readonly waitMs?: number;
  /** A lock older than this is taken for a holder that hangs, or a pid now reused, and broken. Default 10 s. */
  readonly staleMs?: number;
}

/** Another process held the lock for longer than the wait allowed; trying again later may succeed. */
export class LockFileTimeoutError extends ToolgateError {
  constructor(lock: string, waitMs: number) {
    super('EXECUTION_FAILED', `${lock} was held by another process for more than ${String(waitMs)} ms.`, { retryable: true });
  }
}

/** What a holder writes in its lock: who holds it, and a nonce that tells this lock from a later one at the same name. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly nonce: string;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Run `action` while holding `lock`, a file beside what it guards, across
 * the processes of this machine: created exclusively (mode 0600, never
 * through a link) holding the holder's pid, host and a nonce, and removed
 * after. A contender waits (bounded by `waitMs`) and breaks a lock whose
 * holder is gone (a pid of this host that no longer runs) or that is older
 * than `staleMs`; it removes only the lock it judged, never one a contender
 * made since. Synchronous, like the small rewrites it guards.
 */
export function withLockFileSync<T>(lock: string, action: () => T, options: LockFileOptions = {}): T {
  const { waitMs = 10_000, staleMs = 10_000 } = options;
  const mine = acquire(lock, waitMs, staleMs);
  try {
    return action();
  } finally {
    // A holder slower than `staleMs` may have been broken, and the lock made again by another: that one is left alone.
    if (readLock(lock)?.text === mine) unlinkSync(lock);
  }
}

function acquire(lock: string, waitMs: number, staleMs: number): string {
  const text = JSON.stringify({ pid: process.pid, host: hostname(), nonce: randomBytes(12).toString('hex') } satisfies Holder);
  const deadline = Date.now() + waitMs;
  for (let delayMs = 1; ; delayMs = Math.min(delayMs * 2, 32)) {
    if (createFileIfAbsentSync(lock, text, { mode: 0o600 }) === 'created') return text;
    const gone = breakIfStale(lock, staleMs);
    if (Date.now() >= deadline) throw new LockFileTimeoutError(lock, waitMs);
    // A lock just broken or let go is tried again at once; otherwise a random share of the delay keeps contenders
    // that started together from retrying together.
    if (!gone) Atomics.wait(pause, 0, 0, delayMs / 2 + Math.random() * delayMs);
  }
}

/** The lock's text and identity; undefined once nothing is at its name. A link there is not a lock: it is removed (not followed). */
function readLock(lock: string): { text: string; ino: number; dev: number; ageMs: number } | undefined {
  let fd: number;
  try {
    fd = openSync(lock, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code !== 'ELOOP') throw error;
    unlinkSync(lock);
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${lock} is not a lock file.`);
    const buffer = Buffer.alloc(512);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return { text: buffer.toString('utf8', 0, length), ino: stats.ino, dev: stats.dev, ageMs: Date.now() - stats.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** Whether the lock was there and is no longer: broken as stale, or released meanwhile (then the caller retries at once). */
function breakIfStale(lock: string, staleMs: number): boolean {
  const found = readLock(lock);
  if (found === undefined) return true;
  const holder = holderOf(found.text);
  const gone = holder !== undefined && holder.host === hostname() && !isProcessAlive(holder.pid);
  if (!gone && found.ageMs <= staleMs) return false;
  // Moved aside first, then judged again: between the read and the move a contender may have broken it and locked anew.
  const aside = `${lock}.${String(process.pid)}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(lock, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  const moved = readLock(aside);
  if (moved === undefined || (moved.text === found.text && moved.ino === found.ino && moved.dev === found.dev)) {
    rmSync(aside, { force: true });
    return true;
  }
  // Another holder's lock: put back under its name, unless yet another contender has locked since.
  restore(aside, lock);
  return false;
}

function restore(aside: string, lock: string): void {
  try {
    linkSync(aside, lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Who holds a lock, as its text says; undefined for text no holder wrote (the lock is then judged by its age alone). */
function holderOf(text: string): Pick<Holder, 'pid' | 'host'> | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0 || typeof parsed.host !== 'string') return undefined;
    return { pid: parsed.pid, host: parsed.host };
  } catch {
    return undefined;
  }
}
