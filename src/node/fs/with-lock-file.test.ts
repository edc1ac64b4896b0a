import { existsSync, lstatSync, mkdtempSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockFileTimeoutError, withLockFile, withLockFileSync } from './with-lock-file.js';

const folder = (): string => mkdtempSync(join(tmpdir(), 'toolgate-lock-file-'));

describe('withLockFileSync', () => {
  it('holds a private lock file while the action runs, and removes it after, whether the action returns or throws', () => {
    const lock = join(folder(), 'record.json.lock');
    const seen = withLockFileSync(lock, () => {
      const stats = lstatSync(lock);
      return { file: stats.isFile(), mode: stats.mode & 0o777, holder: JSON.parse(readFileSync(lock, 'utf8')) as unknown };
    });
    expect(seen).toEqual({ file: true, mode: 0o600, holder: { pid: process.pid, host: hostname(), token: expect.stringMatching(/^[0-9a-f]{24}$/) as unknown } });
    expect(existsSync(lock)).toBe(false);
    expect(() => withLockFileSync(lock, () => {
      throw new Error('failed');
    })).toThrow('failed');
    expect(existsSync(lock)).toBe(false);
  });

  it('gives up on a live holder after the wait, with a typed, retryable error', () => {
    const lock = join(folder(), 'record.json.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'held' }), { mode: 0o600 });
    let ran = false;
    const started = Date.now();
    expect(() => withLockFileSync(lock, () => (ran = true), { waitMs: 200 })).toThrow(LockFileTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(ran).toBe(false);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ token: 'held' });
    expect(() => withLockFileSync(lock, () => undefined, { waitMs: 0 })).toThrow(expect.objectContaining({ code: 'EXECUTION_FAILED', retryable: true }));
  });

  it('breaks a lock older than staleMs, and one whose holder on this host is gone', () => {
    const lock = join(folder(), 'record.json.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'old' }), { mode: 0o600 });
    const breaking = (): string => withLockFileSync(lock, () => 'ran', { waitMs: 5000, staleMs: 50 });
    // Its age is counted from its modification time, which the kernel stamps from a coarse clock that can lag Date.now() by a tick.
    const started = statSync(lock).mtimeMs;
    expect(breaking()).toBe('ran');
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(existsSync(lock)).toBe(false);
    // No process has pid 4194304: Linux hands out smaller ones. A lock of a holder gone is broken once past the grace
    // that covers a holder in another pid namespace (two seconds), long before it is stale.
    writeFileSync(lock, JSON.stringify({ pid: 4_194_304, host: hostname(), token: 'gone' }), { mode: 0o600 });
    const past = new Date(Date.now() - 3000);
    utimesSync(lock, past, past);
    const again = Date.now();
    expect(withLockFileSync(lock, () => 'ran', { waitMs: 5000, staleMs: 60_000 })).toBe('ran');
    expect(Date.now() - again).toBeLessThan(1000);
    // Within the grace it is waited for.
    writeFileSync(lock, JSON.stringify({ pid: 4_194_304, host: hostname(), token: 'gone' }), { mode: 0o600 });
    expect(() => withLockFileSync(lock, () => 'ran', { waitMs: 300, staleMs: 60_000 })).toThrow(LockFileTimeoutError);
  });

  it('never writes through a link at the lock name, nor removes a lock another holder made after breaking this one', () => {
    const dir = folder();
    const lock = join(dir, 'record.json.lock');
    const target = join(dir, 'elsewhere.txt');
    writeFileSync(target, 'untouched');
    symlinkSync(target, lock);
    expect(withLockFileSync(lock, () => lstatSync(lock).isFile())).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    // A holder slower than staleMs whose lock was broken and made anew: it leaves the new holder's lock in place.
    withLockFileSync(lock, () => writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'next' })));
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ token: 'next' });
  });

  it('withLockFile: holds the lock across an asynchronous action, and waits for it on timers, never blocking the event loop', async () => {
    const lock = join(folder(), 'pins.json.lock');
    const order: string[] = [];
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 5);
    const first = withLockFile(lock, async () => {
      order.push('first in');
      // Long enough that a loaded machine still ticks more than five times while the second waits; a blocking wait ticks not at all.
      await new Promise((resolve) => setTimeout(resolve, 300));
      order.push('first out');
    });
    const second = withLockFile(lock, () => {
      order.push('second');
      return Promise.resolve();
    });
    await Promise.all([first, second]);
    clearInterval(ticking);
    expect(order).toEqual(['first in', 'first out', 'second']);
    expect(ticks).toBeGreaterThan(5);
    expect(existsSync(lock)).toBe(false);
  });
});
