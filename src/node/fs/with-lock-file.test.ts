import { existsSync, lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockFileTimeoutError, withLockFileSync } from './with-lock-file.js';

const folder = (): string => mkdtempSync(join(tmpdir(), 'toolgate-lock-file-'));

describe('withLockFileSync', () => {
  it('holds a private lock file while the action runs, and removes it after, whether the action returns or throws', () => {
    const lock = join(folder(), 'record.json.lock');
    const seen = withLockFileSync(lock, () => {
      const stats = lstatSync(lock);
      return { file: stats.isFile(), mode: stats.mode & 0o777, holder: JSON.parse(readFileSync(lock, 'utf8')) as unknown };
    });
    expect(seen).toEqual({ file: true, mode: 0o600, holder: { pid: process.pid, host: hostname(), nonce: expect.stringMatching(/^[0-9a-f]{24}$/) as unknown } });
    expect(existsSync(lock)).toBe(false);
    expect(() => withLockFileSync(lock, () => {
      throw new Error('failed');
    })).toThrow('failed');
    expect(existsSync(lock)).toBe(false);
  });

  it('gives up on a live holder after the wait, with a typed, retryable error', () => {
    const lock = join(folder(), 'record.json.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'held' }), { mode: 0o600 });
    let ran = false;
    const started = Date.now();
    expect(() => withLockFileSync(lock, () => (ran = true), { waitMs: 200 })).toThrow(LockFileTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(ran).toBe(false);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ nonce: 'held' });
    expect(() => withLockFileSync(lock, () => undefined, { waitMs: 0 })).toThrow(expect.objectContaining({ code: 'EXECUTION_FAILED', retryable: true }));
  });

  it('breaks a lock older than staleMs, and one whose holder on this host is gone', () => {
    const lock = join(folder(), 'record.json.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'old' }), { mode: 0o600 });
    const breaking = (): string => withLockFileSync(lock, () => 'ran', { waitMs: 5000, staleMs: 50 });
    const started = Date.now();
    expect(breaking()).toBe('ran');
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(existsSync(lock)).toBe(false);
    // No process has pid 4194304: Linux hands out smaller ones.
    writeFileSync(lock, JSON.stringify({ pid: 4_194_304, host: hostname(), nonce: 'gone' }), { mode: 0o600 });
    const again = Date.now();
    expect(withLockFileSync(lock, () => 'ran', { waitMs: 5000, staleMs: 60_000 })).toBe('ran');
    expect(Date.now() - again).toBeLessThan(1000);
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
    withLockFileSync(lock, () => writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'next' })));
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ nonce: 'next' });
  });
});
