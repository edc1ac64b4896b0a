import { randomBytes } from 'node:crypto';
import { link, open, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolgateError } from '../core/internal.js';
import { isProcessAlive } from '../node/process/is-process-alive.js';

/** How long a writer waits for another process's lock before it gives up. */
const WAIT_MS = 15_000;
/**
 * A lock is held for one read-modify-write: milliseconds. One this old was
 * left by a process that crashed (on another host, or under a pid since
 * reused) or hung. Shorter than WAIT_MS, so a waiter outlasts any abandoned lock.
 */
const STALE_MS = 10_000;
/**
 * A lock whose owner is not alive on this host is abandoned, once it is this
 * old: the grace covers an owner in another pid namespace (a container
 * sharing the volume and the hostname), whose pid means nothing here.
 */
const DEAD_OWNER_MS = 2_000;
const MAX_BACKOFF_MS = 50;

/** A lock file as a waiter saw it: its text and mtime tell, after it is moved aside, whether it is the same one. */
interface SeenLock {
  readonly text: string;
  readonly mtimeMs: number;
}

/**
 * Run `body` holding a lock that other processes honour: a file created
 * exclusively (`wx`) that names its owner (pid, host and a random token). A
 * waiter retries with a short, jittered backoff for up to WAIT_MS, breaks a
 * stale lock, and then fails with a retryable `EXECUTION_FAILED`. The lock is
 * released only if it is still this holder's own.
 */
export async function withFileLock<T>(lockPath: string, body: () => Promise<T>): Promise<T> {
  const owner = JSON.stringify({ pid: process.pid, host: hostname(), token: randomBytes(12).toString('hex') });
  await acquire(lockPath, owner);
  try {
    return await body();
  } finally {
    await release(lockPath, owner);
  }
}

async function acquire(lockPath: string, owner: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (let backoffMs = 1; ; backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS)) {
    if (await tryCreate(lockPath, owner)) return;
    if (await breakIfStale(lockPath)) continue;
    if (Date.now() >= deadline) {
      throw new ToolgateError(
        'EXECUTION_FAILED',
        `Lock file "${basename(lockPath)}" stayed held by another process for ${WAIT_MS / 1000} s; if no other toolgate process is writing, remove it.`,
        { retryable: true },
      );
    }
    // The jitter keeps processes that collided from retrying in lockstep.
    await sleep(backoffMs + Math.random() * backoffMs);
  }
}

async function tryCreate(lockPath: string, owner: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(lockPath, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(owner);
  } catch (error) {
    // A lock naming no owner would stall every writer until it turned stale.
    await rm(lockPath, { force: true });
    throw error;
  } finally {
    await handle.close();
  }
  return true;
}

/** True when the lock is gone or was stale and is removed: try again at once. */
async function breakIfStale(lockPath: string): Promise<boolean> {
  const seen = await look(lockPath);
  if (seen === undefined) return true;
  if (!isStale(seen)) return false;
  // Moved aside, not deleted: another waiter may have broken the same stale
  // lock and taken a fresh one since we looked, and a deletion could not tell.
  const aside = `${lockPath}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  try {
    const moved = await look(aside);
    if (moved === undefined || (moved.text === seen.text && moved.mtimeMs === seen.mtimeMs)) return true;
    // It was a fresh lock: put it back. This fails only if a third process
    // took the free lock in the instant between; then both hold it, which no
    // lock file can prevent once stale locks are broken.
    try {
      await link(aside, lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return false;
  } finally {
    await rm(aside, { force: true });
  }
}

function isStale(seen: SeenLock): boolean {
  const ageMs = Date.now() - seen.mtimeMs;
  if (ageMs > STALE_MS) return true;
  if (ageMs <= DEAD_OWNER_MS) return false;
  const owner = parseOwner(seen.text);
  return owner !== undefined && owner.host === hostname() && !isProcessAlive(owner.pid);
}

/** The owner a lock names; undefined for a lock whose owner crashed before writing it. */
function parseOwner(text: string): { readonly pid: number; readonly host: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const owner = parsed as { pid?: unknown; host?: unknown } | null;
  // A pid of 0 or below would address a process group, not a process.
  if (typeof owner !== 'object' || owner === null || !Number.isSafeInteger(owner.pid) || (owner.pid as number) <= 0 || typeof owner.host !== 'string') return undefined;
  return { pid: owner.pid as number, host: owner.host };
}


/** Text and mtime from one open file, so both describe the same lock. */
async function look(path: string): Promise<SeenLock | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const info = await handle.stat();
    return { text: await handle.readFile('utf8'), mtimeMs: info.mtimeMs };
  } finally {
    await handle.close();
  }
}

async function release(lockPath: string, owner: string): Promise<void> {
  // Only our own: if a waiter judged this holder stale (it hung past STALE_MS)
  // and another process now holds the lock, deleting it would let a third in.
  if ((await look(lockPath))?.text === owner) await rm(lockPath, { force: true });
}
