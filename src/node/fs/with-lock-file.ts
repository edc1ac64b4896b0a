import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, openSync, readSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolgateError } from '../../core/internal.js';
import { isProcessAlive } from '../process/is-process-alive.js';
import { createFileIfAbsentSync } from './create-file-if-absent.js';

export interface LockFileOptions {
  /** How long to wait for another holder before giving up (`LockFileTimeoutError`). Default 15 s. */
  readonly waitMs?: number;
  /**
   * A lock is held for one read-modify-write: milliseconds. One older than
   * this was left by a holder that hung, crashed on another host, or whose
   * pid was reused, and is broken. Default 10 s: shorter than the default
   * wait, so a waiter outlasts any abandoned lock.
   */
  readonly staleMs?: number;
}

/**
 * A lock whose holder does not run on this host is abandoned once it is this
 * old: the grace covers a holder in another pid namespace (a container
 * sharing the volume and the host name), whose pid means nothing here.
 */
const DEAD_HOLDER_MS = 2_000;
const MAX_BACKOFF_MS = 50;

/** Another process held the lock for longer than the wait allowed; trying again later may succeed. */
export class LockFileTimeoutError extends ToolgateError {
  constructor(lock: string, waitMs: number) {
    super('EXECUTION_FAILED', `Lock file "${basename(lock)}" stayed held by another process for ${String(waitMs)} ms; if no other toolgate process is writing, remove it.`, { retryable: true });
  }
}

/** What a holder writes in its lock: who holds it, and a token that tells this lock from a later one at the same name. */
interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
}

/**
 * Run `action` while holding `lock`, a file beside what it guards, across
 * the processes of this machine (and of others sharing the folder, by age):
 * created exclusively (mode 0600, never through a link) holding the
 * holder's pid, host and a random token, and removed after. A contender
 * waits with a short, jittered backoff (bounded by `waitMs`), breaks a lock
 * whose holder is gone or that is older than `staleMs`, and removes only the
 * lock it judged, never one a contender made since. Synchronous, for the
 * small rewrites of a command's own state; a running gateway uses
 * `withLockFile`, which waits without blocking its event loop.
 */
export function withLockFileSync<T>(lock: string, action: () => T, options: LockFileOptions = {}): T {
  const holder = holderText();
  for (const delayMs of attemptsToLock(lock, holder, options)) Atomics.wait(pause, 0, 0, delayMs);
  try {
    return action();
  } finally {
    release(lock, holder);
  }
}

/** `withLockFileSync` for an asynchronous `action`, waiting for the lock on timers. */
export async function withLockFile<T>(lock: string, action: () => Promise<T>, options: LockFileOptions = {}): Promise<T> {
  const holder = holderText();
  for (const delayMs of attemptsToLock(lock, holder, options)) await sleep(delayMs);
  try {
    return await action();
  } finally {
    release(lock, holder);
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

function holderText(): string {
  return JSON.stringify({ pid: process.pid, host: hostname(), token: randomBytes(12).toString('hex') } satisfies Holder);
}

/**
 * Take the lock, yielding how long to wait before each next try; done once
 * it is `holder`'s. A lock just broken or let go is tried again at once;
 * otherwise a random share of the backoff keeps contenders that collided
 * from retrying in lockstep.
 */
function* attemptsToLock(lock: string, holder: string, options: LockFileOptions): Generator<number, void, unknown> {
  const { waitMs = 15_000, staleMs = 10_000 } = options;
  const deadline = Date.now() + waitMs;
  for (let backoffMs = 1; ; backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS)) {
    if (createFileIfAbsentSync(lock, holder, { mode: 0o600 }) === 'created') return;
    if (breakIfStale(lock, staleMs)) continue;
    if (Date.now() >= deadline) throw new LockFileTimeoutError(lock, waitMs);
    yield backoffMs / 2 + Math.random() * backoffMs;
  }
}

/** Only the holder's own: a holder slower than `staleMs` may have been broken, and the lock made again by another. */
function release(lock: string, holder: string): void {
  if (readLock(lock)?.text === holder) unlinkSync(lock);
}

interface SeenLock {
  readonly text: string;
  readonly ino: number;
  readonly dev: number;
  readonly ageMs: number;
}

/** The lock's text and identity; undefined once nothing is at its name. A link there is not a lock: it is removed, never followed. */
function readLock(lock: string): SeenLock | undefined {
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

/** Whether the lock was there and is no longer: broken as stale, or let go meanwhile (the caller then tries again at once). */
function breakIfStale(lock: string, staleMs: number): boolean {
  const found = readLock(lock);
  if (found === undefined) return true;
  if (!isStale(found, staleMs)) return false;
  // Moved aside, then judged again: between the read and the move a contender may have broken it and locked anew.
  const aside = `${lock}.${String(process.pid)}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(lock, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  try {
    const moved = readLock(aside);
    if (moved === undefined || (moved.text === found.text && moved.ino === found.ino && moved.dev === found.dev)) return true;
    // Another holder's fresh lock: put back under its name. This fails only if a third process took the free name in
    // the instant between; then both hold it, which no lock file can prevent once stale locks are broken.
    try {
      linkSync(aside, lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return false;
  } finally {
    rmSync(aside, { force: true });
  }
}

function isStale(found: SeenLock, staleMs: number): boolean {
  if (found.ageMs > staleMs) return true;
  if (found.ageMs <= DEAD_HOLDER_MS) return false;
  const holder = holderOf(found.text);
  return holder !== undefined && holder.host === hostname() && !isProcessAlive(holder.pid);
}

/** Who holds a lock, as its text says; undefined for text no holder wrote (the lock is then judged by its age alone). */
function holderOf(text: string): Pick<Holder, 'pid' | 'host'> | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<Holder> | null;
    // A pid of 0 or below would address a process group, not a process.
    if (typeof parsed !== 'object' || parsed === null || typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0 || typeof parsed.host !== 'string') return undefined;
    return { pid: parsed.pid, host: parsed.host };
  } catch {
    return undefined;
  }
}
