import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolRegistry, type JournalSettleInput, type ToolReceipt } from '../../core/internal.js';
import { createSqliteJournal } from './create-sqlite-journal.js';
import { ResultBlobs } from './result-blobs.js';
import type { SqliteJournal } from './sqlite-journal.js';

let dir: string;
let file: string;
let journal: SqliteJournal;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-blobs-'));
  file = join(dir, 'journal.db');
  journal = createSqliteJournal(file, { onUnresolved: () => undefined });
});
afterEach(() => {
  journal.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A 60 KB file as a read returns it: its text as the value, its first 32 KiB as the content the model read. */
const FILE = 'a line of the file read again and again\n'.repeat(1500);
const PREVIEW = FILE.slice(0, 32 * 1024);

function settled(callId: string, value: unknown = FILE, content = PREVIEW): JournalSettleInput {
  return { ok: true, value, content, receipt: { callId, tool: 'read_file', actionDigest: 'd'.repeat(64), status: 'ok' } as unknown as ToolReceipt };
}

const key = (callId: string): string => `${'d'.repeat(64)}:${callId}`;

function inFile<T>(sql: string): T {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as T;
  } finally {
    db.close();
  }
}

describe('ResultBlobs: the long texts of results, stored once', () => {
  it('stores the same long value and content once however often they are recorded, and reads each recording back whole', async () => {
    // Each preview ends on a line of its own (where its whole output was spilled, say): that line stays in the body.
    for (let index = 0; index < 50; index += 1) await journal.settle(undefined, settled(`c${index}`, FILE, `${PREVIEW}\n[call c${index}]`));
    // The value (as JSON) and the content: two texts, not a hundred.
    expect(inFile<number>('SELECT count(*) FROM blobs')).toBe(2);
    // Recorded inline, the receipts held 50 × 92 KB.
    expect(inFile<number>('SELECT sum(length(body)) FROM receipts')).toBeLessThan(50 * 1024);
    expect(await journal.lookup(key('c7'))).toMatchObject({ ok: true, value: FILE, content: `${PREVIEW}\n[call c7]` });
    expect(await journal.lookup(key('c7'))).not.toHaveProperty('valueBlob');
    // A short result is recorded as it was, in its body.
    await journal.settle(undefined, settled('short', 'small', 'small'));
    expect(await journal.lookup(key('short'))).toMatchObject({ ok: true, value: 'small', content: 'small' });
    expect(inFile<number>('SELECT count(*) FROM blobs')).toBe(2);
    expect((await journal.verify()).ok).toBe(true);
  });

  it('answers a retry from a recording whose texts are stored aside, and replays a run whole', async () => {
    let ran = 0;
    const registry = createToolRegistry({
      tools: [{ name: 'read_big', description: 'Reads.', input: { type: 'object', properties: {}, additionalProperties: false }, journal: 'record', dispatch: () => ((ran += 1), FILE) }],
      journal,
    });
    const context = { grantedTools: ['read_big'], runId: 'run-1' };
    const first = await registry.dispatch({ callId: 'r1', name: 'read_big', arguments: {} }, context);
    await registry.dispatch({ callId: 'r2', name: 'read_big', arguments: {} }, context);
    // The same call id again: answered from the journal, its body not run.
    const again = await registry.dispatch({ callId: 'r1', name: 'read_big', arguments: {} }, context);
    expect(ran).toBe(2);
    expect(again).toMatchObject({ ok: true, value: FILE });
    expect(again.ok && again.content).toEqual(first.ok && first.content);
    const recordings = await journal.recordings({ runId: 'run-1' });
    expect(recordings.map((recorded) => recorded.value)).toEqual([FILE, FILE]);
  });

  it('reads a text changed or removed in the file as a value not kept: the recording answers no retry', async () => {
    await journal.settle(undefined, settled('c1'));
    journal.close();
    const db = new Database(file);
    db.prepare(`UPDATE blobs SET text = 'forged' WHERE text LIKE '"%'`).run();
    db.prepare(`DELETE FROM blobs WHERE text NOT LIKE '"%' AND text <> 'forged'`).run();
    db.close();
    journal = createSqliteJournal(file, { onUnresolved: () => undefined });
    const recorded = await journal.lookup(key('c1'));
    expect(recorded).toMatchObject({ ok: true, valueNotKept: true, content: '' });
    expect(recorded?.value).toBeUndefined();
    // The chain vouches for the digests; verify() looks at the texts too.
    expect(await journal.verify()).toMatchObject({ ok: false, firstBadRow: { table: 'blobs', problem: expect.stringContaining('no longer matches its digest') as unknown } });
    journal.close();
    const again = new Database(file);
    again.prepare(`DELETE FROM blobs`).run();
    again.close();
    journal = createSqliteJournal(file, { onUnresolved: () => undefined });
    expect(await journal.verify()).toMatchObject({ ok: false, firstBadRow: { table: 'receipts', problem: 'names a stored text the file no longer holds' } });
  });

  it('keeps a lone surrogate as the file reads it back, and the text still matches its digest', async () => {
    const broken = `\ud800${FILE}`;
    await journal.settle(undefined, settled('c1', 'short', broken));
    expect((await journal.lookup(key('c1')))?.content).toBe(broken.toWellFormed());
  });

  it('lets a compaction remove the texts only the dropped receipts named', async () => {
    await journal.settle(undefined, settled('old'));
    await journal.compact({ before: Date.now() + 1_000 });
    expect(inFile<number>('SELECT count(*) FROM blobs')).toBe(0);
    await journal.settle(undefined, settled('new'));
    expect(await journal.lookup(key('new'))).toMatchObject({ value: FILE, content: PREVIEW });
    expect(inFile<number>('SELECT count(*) FROM blobs')).toBe(2);
  });

  it('verifies and compacts a journal whose result is nested past the depth SQLite parses JSON to', async () => {
    // A tool's result nested 1,500 deep (3 KB of JSON, well within the value kept): SQLite's JSON functions stop at
    // 1,000 levels, and a walk that parsed every body with them threw "malformed JSON" from verify() and compact().
    let deep: unknown = 1;
    for (let depth = 0; depth < 1500; depth += 1) deep = [deep];
    await journal.settle(undefined, settled('old', 'small', 'small'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const before = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Its content is long: the body that nests deep names a stored text.
    await journal.settle(undefined, settled('deep', deep, PREVIEW));
    expect(await journal.verify()).toMatchObject({ ok: true });
    await expect(journal.compact({ before })).resolves.toMatchObject({ removed: { receipts: 1 } });
    // The text the kept receipt names survives the compaction.
    expect(await journal.lookup(key('deep'))).toMatchObject({ ok: true, value: deep, content: PREVIEW });
    expect(await journal.verify()).toMatchObject({ ok: true });
  });

  it('reports a trigger on the stored texts', async () => {
    await journal.settle(undefined, settled('c1'));
    journal.close();
    const db = new Database(file);
    // Not on a chained or derived table, it runs inside every receipt's commit all the same.
    db.exec(`CREATE TRIGGER blobs_hook AFTER INSERT ON blobs BEGIN DELETE FROM receipt_keys WHERE 0; END`);
    db.close();
    journal = createSqliteJournal(file, { onUnresolved: () => undefined });
    expect(await journal.verify()).toMatchObject({ ok: false, firstBadRow: { table: 'schema', problem: 'unexpected trigger blobs_hook on blobs' } });
  });

  it('reads a run whole while another journal on the file compacts it between the bodies and their texts', async () => {
    const prepared = await journal.prepare({ key: key('r1'), tier: 'record', runId: 'run-1', actionDigest: 'd'.repeat(64), callId: 'r1', toolName: 'read_file' } as never);
    expect(prepared.status).toBe('claimed');
    await journal.settle(prepared.status === 'claimed' ? prepared.claim : undefined, settled('r1'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const other = createSqliteJournal(file, { onUnresolved: () => undefined });
    // The other journal (another process) compacts just after the bodies were read, before their texts are.
    const text = vi.spyOn(ResultBlobs.prototype, 'text').mockImplementationOnce(function (this: ResultBlobs, digest: string) {
      // Everything written so far is older than this: the receipt may have committed in this very millisecond.
      void other.compact({ before: Date.now() + 1_000 });
      text.mockRestore();
      return this.text(digest);
    });
    try {
      const recordings = await journal.recordings({ runId: 'run-1' });
      expect(recordings.map((recorded) => [recorded.valueNotKept, recorded.value])).toEqual([[undefined, FILE]]);
      // The compaction did run: the receipt and its texts are gone from the file.
      expect(inFile<number>('SELECT count(*) FROM receipts') + inFile<number>('SELECT count(*) FROM blobs')).toBe(0);
    } finally {
      text.mockRestore();
      other.close();
    }
  });
});
