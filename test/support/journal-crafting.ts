import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

// What an archive can carry into a workspace beside the user's journal, built from an author's journal: a
// write-ahead log of its pages, a hot rollback journal of them. Nothing in either names the file it was written for.

/** The project as the user gets it without any journal (from git, say): the author's `.toolgate/` left out. */
export function withoutState(workspace: string): string {
  const copy = `${workspace}-mine`;
  execFileSync('cp', ['-a', workspace, copy]);
  rmSync(join(copy, '.toolgate'), { recursive: true, force: true });
  return copy;
}

/** The author's journal, every page in the main file (a copy checkpointed), WAL mode kept. */
export function flatCopyOf(journal: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-journal-crafting-flat-'));
  const copy = join(dir, 'journal.db');
  copyFileSync(journal, copy);
  for (const suffix of ['-wal', '-shm']) if (existsSync(`${journal}${suffix}`)) copyFileSync(`${journal}${suffix}`, `${copy}${suffix}`);
  const db = new Database(copy);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return readFileSync(copy);
}

/**
 * A WAL file (big-endian checksums) whose frames are the pages of `db`, all but `skip`, committed as one
 * transaction. Nothing in a WAL names the database it belongs to: SQLite replays it into whatever file it lies beside.
 */
export function craftWal(db: Buffer, skip: ReadonlySet<number>): Buffer {
  const raw = db.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = db.length / pageSize;
  const sum = (buf: Buffer, s: [number, number]): [number, number] => {
    let [s0, s1] = s;
    for (let i = 0; i < buf.length; i += 8) {
      s0 = (s0 + buf.readUInt32BE(i) + s1) >>> 0;
      s1 = (s1 + buf.readUInt32BE(i + 4) + s0) >>> 0;
    }
    return [s0, s1];
  };
  const header = Buffer.alloc(32);
  header.writeUInt32BE(0x377f0683, 0);
  header.writeUInt32BE(3007000, 4);
  header.writeUInt32BE(pageSize, 8);
  header.writeUInt32BE(0x12345678, 16);
  header.writeUInt32BE(0x9abcdef0, 20);
  let s = sum(header.subarray(0, 24), [0, 0]);
  header.writeUInt32BE(s[0], 24);
  header.writeUInt32BE(s[1], 28);
  const parts: Buffer[] = [header];
  const list = Array.from({ length: pages }, (_, index) => index + 1).filter((page) => !skip.has(page));
  list.forEach((page, index) => {
    const frame = Buffer.alloc(24);
    frame.writeUInt32BE(page, 0);
    frame.writeUInt32BE(index === list.length - 1 ? pages : 0, 4);
    frame.writeUInt32BE(0x12345678, 8);
    frame.writeUInt32BE(0x9abcdef0, 12);
    const data = db.subarray((page - 1) * pageSize, page * pageSize);
    s = sum(data, sum(frame.subarray(0, 8), s));
    frame.writeUInt32BE(s[0], 16);
    frame.writeUInt32BE(s[1], 20);
    parts.push(frame, data);
  });
  return Buffer.concat(parts);
}

/** The root pages of the meta table and its index: where `meta.journal_id` lives, the same in every journal toolgate makes. */
export function metaPages(db: Buffer): Set<number> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-journal-crafting-meta-'));
  writeFileSync(join(dir, 'j.db'), db);
  const opened = new Database(join(dir, 'j.db'), { readonly: true });
  try {
    return new Set(opened.prepare<[], number>(`SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'meta'`).pluck().all());
  } finally {
    opened.close();
  }
}

export function authorsInvocations(workspace: string): string[] {
  const flat = flatCopyOf(join(workspace, '.toolgate', 'journal.db'));
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-journal-crafting-rows-'));
  writeFileSync(join(dir, 'j.db'), flat);
  const db = new Database(join(dir, 'j.db'), { readonly: true });
  try {
    return db.prepare<[], string>(`SELECT json_extract(body, '$.receipt.invocationId') FROM receipts`).pluck().all();
  } finally {
    db.close();
  }
}

/**
 * A hot rollback journal (`journal.db-journal`) whose saved pages are the author's: the author opens a copy of the
 * author's journal, starts a write that touches every chained table (not meta), and kills the process mid-transaction.
 */
export function craftHotJournal(authorsJournal: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-journal-crafting-hot-'));
  const copy = join(dir, 'a.db');
  writeFileSync(copy, flatCopyOf(authorsJournal));
  const script = `
    const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(copy)});
    db.pragma('journal_mode = DELETE');
    db.pragma('cache_size = 1');
    db.exec('BEGIN IMMEDIATE');
    db.exec("INSERT INTO events (at,type,body,prev_hash,hash) VALUES (1,'x','x','x','x')");
    db.exec("INSERT INTO claims (at,claim_id,key,state,body,prev_hash,hash) VALUES (1,'x','x','claimed','x','x','x')");
    db.exec("INSERT INTO receipts (at,key,tool,body,prev_hash,hash) VALUES (1,'x','x','x','x','x')");
    db.exec("INSERT INTO checkpoints (at,through_seq,through_hash,body,prev_hash,hash) VALUES (1,1,'x','x','x','x')");
    db.exec("INSERT INTO runs VALUES ('zz', 1)"); db.exec("INSERT INTO receipt_keys VALUES ('zz', 1)"); db.exec("INSERT INTO blobs VALUES ('zz', 'x')");
    process.kill(process.pid, 'SIGKILL');`;
  spawnSync(process.execPath, ['-e', script]);
  return readFileSync(`${copy}-journal`);
}
