import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CEILING_FRAMES, CHECKPOINT_FRAMES, reportsLogWithoutCopying, WalCheckpointer } from './wal-checkpointer.js';

let dir: string;
let file: string;
let db: Database.Database;
let checkpointer: WalCheckpointer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-wal-'));
  file = join(dir, 'journal.db');
  db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE rows (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)');
});
afterEach(() => {
  checkpointer?.close();
  checkpointer = undefined;
  if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Single-row commits, each told to the checkpointer, until the log holds at least `frames` frames. */
function commitFrames(frames: number): void {
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
  const body = 'x'.repeat(3000);
  while (statSync(`${file}-wal`).size < frames * (4096 + 24)) {
    insert.run(body);
    checkpointer?.committed();
  }
}

async function eventually(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('WalCheckpointer', () => {
  it('copies the log into the file on a worker once 1,000 frames wait; the connection never checkpoints itself below the ceiling', async () => {
    checkpointer = new WalCheckpointer(db, file);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(CEILING_FRAMES);
    const before = statSync(file).size;
    commitFrames(CHECKPOINT_FRAMES - 100);
    // Below the threshold nothing is started, and nothing copied.
    expect(checkpointer.started).toBe(false);
    expect(statSync(file).size).toBe(before);
    commitFrames(CHECKPOINT_FRAMES + 100);
    expect(checkpointer.started).toBe(true);
    // Only the worker copies pages into the file here: the connection's own threshold is ten times further.
    await eventually(() => statSync(file).size > 1024 * 1024);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('copies what the log still holds once commits pause, so that the log starts over from its beginning', async () => {
    checkpointer = new WalCheckpointer(db, file);
    commitFrames(CHECKPOINT_FRAMES + 100);
    expect(checkpointer.started).toBe(true);
    await eventually(() => statSync(file).size > 1024 * 1024);
    // Frames past the checkpoint the worker was asked for: too few to ask for another.
    commitFrames(CHECKPOINT_FRAMES + 400);
    await new Promise((resolve) => setTimeout(resolve, 300));
    db.prepare('INSERT INTO rows (body) VALUES (?)').run('after the pause');
    // The log started over with that commit: it holds that commit's frames alone.
    const [checkpoint] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    expect(checkpoint?.log).toBeLessThan(10);
  });

  it('closes the worker’s connection in close(): the connection closing after it is the last, and removes the log', () => {
    checkpointer = new WalCheckpointer(db, file);
    commitFrames(CHECKPOINT_FRAMES + 100);
    expect(checkpointer.started).toBe(true);
    checkpointer.close();
    db.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = new Database(file, { readonly: true });
    try {
      expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      reopened.close();
    }
  });

  it('hands checkpoints back to the connection when the worker cannot open the file', async () => {
    checkpointer = new WalCheckpointer(db, file);
    // The open connection keeps working on the moved file; the worker finds no file under its name.
    renameSync(file, `${file}.moved`);
    commitFrames(CHECKPOINT_FRAMES + 100);
    expect(checkpointer.started).toBe(true);
    await eventually(() => db.pragma('wal_autocheckpoint', { simple: true }) === CHECKPOINT_FRAMES);
  });

  it('keeps the locks SQLite holds on the shared memory for the process’s other connections when it closes', () => {
    checkpointer = new WalCheckpointer(db, file);
    commitFrames(CHECKPOINT_FRAMES + 100);
    expect(checkpointer.started).toBe(true);
    const reader = new Database(file, { readonly: true });
    try {
      reader.prepare('SELECT count(*) FROM rows').get();
      const shm = statSync(`${file}-shm`).ino;
      expect(locksOn(shm)).toBeGreaterThan(0);
      checkpointer.close();
      db.close();
      // The reader's lock tells other processes a connection still maps the shared memory: dropped, the next
      // process to open the file would take itself for the first and rebuild the file under the reader.
      expect(locksOn(shm)).toBeGreaterThan(0);
      expect(reader.prepare('SELECT count(*) FROM rows').pluck().get()).toBeGreaterThan(0);
    } finally {
      reader.close();
    }
  });

  it('reports the log only where SQLite knows the NOOP mode (3.51.0 on); an older one would checkpoint on the connection', () => {
    const reporting = (version: string) => reportsLogWithoutCopying({ prepare: () => ({ pluck: () => ({ get: () => version }) }) } as unknown as Database.Database);
    expect(reporting('3.51.0')).toBe(true);
    expect(reporting('3.53.2')).toBe(true);
    expect(reporting('4.0.0')).toBe(true);
    expect(reporting('3.50.4')).toBe(false);
    expect(reporting('3.9.2')).toBe(false);
    expect(reportsLogWithoutCopying(db)).toBe(true);
  });

  it('leaves checkpoints to the connection where SQLite cannot report the log', () => {
    const old = new Proxy(db, { get: (target, key) => (key === 'prepare' ? (sql: string) => (sql === 'SELECT sqlite_version()' ? { pluck: () => ({ get: () => '3.45.1' }) } : target.prepare(sql)) : Reflect.get(target, key, target)) });
    checkpointer = new WalCheckpointer(old, file);
    // Below the connection's own threshold: past it SQLite checkpoints, and the log starts over.
    commitFrames(CHECKPOINT_FRAMES - 100);
    expect(checkpointer.started).toBe(false);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(CHECKPOINT_FRAMES);
  });
});

/** Locks any process holds on the file with inode `inode` (`/proc/locks`). */
function locksOn(inode: number): number {
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((line) => Number(line.trim().split(/\s+/)[5]?.split(':')[2]) === inode).length;
}
