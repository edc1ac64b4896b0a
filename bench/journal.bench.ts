/**
 * The journal's cost: receipts appended per second (hash-chained, with and
 * without Ed25519 signing) against raw better-sqlite3 inserts of the same
 * rows, and the dispatch overhead the journal adds to an effect-tier call.
 * Same process, interleaved rounds, WAL + synchronous=NORMAL unless a row
 * says FULL, and the journal's WAL checkpoints on a worker thread under
 * NORMAL for the raw rows too.
 * The floor row is what durability costs at least: the same two single-row
 * commits an effect-tier call makes (claim, then settle) through
 * better-sqlite3 in the journal's own mode. 64 calls in flight, and 64
 * settles issued together, show group commit: they share commits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createToolRegistry, type ToolDefinition, type ToolReceipt } from 'toolgate';
import { nodeSha256 } from 'toolgate/node';
import { createSqliteJournal, WalCheckpointer, type SqliteJournal } from 'toolgate/sqlite';
import { bench, checkGoal, type BenchRow } from './harness.js';

function receipt(index: number): ToolReceipt {
  return {
    invocationId: `i${index}`,
    callId: `c${index}`,
    tool: 'write_file',
    version: undefined,
    agent: 'bench',
    parent: undefined,
    status: 'ok',
    code: 'OK',
    outputSummary: 'wrote 1,024 bytes to notes/today.md',
    affectedEntities: ['notes/today.md'],
    inputDigest: 'a'.repeat(64),
    actionDigest: 'b'.repeat(64),
    policy: { decision: 'allow', version: 3, rules: [{ id: 'fs-write', source: 'config', decision: 'allow' }] },
    approval: { outcome: 'approve', how: 'prompt', scope: 'once', by: 'user', at: 1_700_000_000_000 },
    effect: 'write',
    risk: 'medium',
    tier: 'T2',
    startedAt: 1_700_000_000_000 + index,
    durationMs: 4,
    arguments: { path: 'notes/today.md', content: 'x'.repeat(200) },
  };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-journal-bench-'));
  try {
    await appendBench(dir);
    await longResultBench(dir);
    await dispatchBench(dir);
    await openBench(dir);
    await sharedFileBench(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The receipt of a long result, as the gateway records a `read_file` of a
 * 60 KB file: its value (within the journal's default 64 KiB) and its
 * bounded content are stored aside by digest. Against one `JSON.stringify`
 * of the same result, the least any encoding of it costs.
 */
async function longResultBench(dir: string): Promise<void> {
  const journal = createSqliteJournal(join(dir, 'long.db'), { onUnresolved: () => undefined });
  const text = 'const total = items.reduce((sum, item) => sum + item.price, 0);\n'.repeat(920);
  const input = { ok: true, value: { path: 'src/big.ts', content: text, bytes: text.length }, content: text.slice(0, 32 * 1024), receipt: receipt(0) };
  let index = 0;
  await bench(
    [
      { name: 'JSON.stringify of the result', run: () => JSON.stringify(input) },
      { name: 'journal.settle of the result (value and content stored aside)', run: () => journal.settle(undefined, { ...input, receipt: receipt((index += 1)) }) },
    ],
    { title: `The receipt of a ${Math.round(text.length / 1000)} KB read (ratio vs one JSON.stringify of it)`, batch: 50, rounds: 15, warmup: 2 },
  );
  journal.close();
}

/** The effect-tier tool every dispatch row calls. */
const WRITE_NOTE: ToolDefinition<{ path: string; content: string }, { bytes: number }> = {
  name: 'write_note',
  description: 'Write a note.',
  input: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
  journal: 'effect',
  dispatch: (args) => ({ bytes: args.content.length }),
};

/**
 * Operations each journal (and the floor) runs, one at a time, before its
 * rows are timed. A fresh journal runs its first few thousand calls 1.5–4×
 * slower than it settles to: its code is not yet optimised, and its WAL file
 * grows until it first starts over (a bench that never pauses lets it reach
 * the 10,000 frames at which the journal's own connection checkpoints, about
 * 3,300 calls). The harness's warm-up rounds, a few hundred calls a row, left
 * the rows reading mostly that start; the figures a running gateway sees are
 * the settled ones. `docs/journal.md` gives what a fresh journal costs.
 */
const SETTLE_OPERATIONS = 5000;

async function settleFirst(...runs: readonly (() => unknown)[]): Promise<void> {
  for (const run of runs) for (let index = 0; index < SETTLE_OPERATIONS; index += 1) await run();
}

/** Settles or calls issued together, as an agent loop running tool calls in parallel issues them. */
const TOGETHER = 64;

/**
 * The calls a registry runs at once, for the rows of calls in flight: by
 * default it runs 8 and the others wait their turn, so only 8 claims could
 * ever share a commit.
 */
const ALL_AT_ONCE = { maxConcurrentCalls: TOGETHER };

async function appendBench(dir: string): Promise<void> {
  const { db: raw, committed, close: closeRaw } = rawConnection(join(dir, 'raw.db'), 'NORMAL');
  raw.exec('CREATE TABLE receipts (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, key TEXT NOT NULL, run_id TEXT, tool TEXT NOT NULL, action_digest TEXT, body TEXT NOT NULL)');
  const insert = raw.prepare('INSERT INTO receipts (at, key, run_id, tool, action_digest, body) VALUES (?, ?, ?, ?, ?, ?)');
  const plain = createSqliteJournal(join(dir, 'plain.db'), { onUnresolved: () => undefined });
  const signed = createSqliteJournal(join(dir, 'signed.db'), { sign: { keyDir: join(dir, 'keys') }, onUnresolved: () => undefined });
  let rawIndex = 0;
  let plainIndex = 0;
  let signedIndex = 0;
  const settleInput = (index: number) => ({ ok: true, value: { bytes: 1024 }, content: 'Wrote 1024 bytes.', receipt: receipt(index) });
  const rows = await bench(
    [
      {
        name: 'raw better-sqlite3 insert (same row)',
        run: () => {
          const r = receipt((rawIndex += 1));
          insert.run(Date.now(), `${r.actionDigest ?? ''}:${r.callId}`, null, r.tool, r.actionDigest ?? null, JSON.stringify(settleInput(rawIndex)));
          committed();
        },
      },
      { name: 'journal.settle, hash chain', run: () => plain.settle(undefined, settleInput((plainIndex += 1))) },
      { name: 'journal.settle, hash chain + Ed25519', run: () => signed.settle(undefined, settleInput((signedIndex += 1))) },
      // Settles that arrive together share one commit (timed per 64).
      { name: `journal.settle, hash chain, ${TOGETHER} together`, run: () => Promise.all(Array.from({ length: TOGETHER }, () => plain.settle(undefined, settleInput((plainIndex += 1))))) },
    ],
    { title: 'Receipts appended (one transaction each, or one per batch)', batch: 200, rounds: 15, warmup: 2 },
  );
  const rawNs = find(rows, 'raw better-sqlite3').medianNs;
  console.log(`one settle at a time: ${(find(rows, 'journal.settle, hash chain').medianNs / rawNs).toFixed(2)}× a raw insert`);
  checkGoal('journal.settle with the chain, batched, vs a raw insert', find(rows, `journal.settle, hash chain, ${TOGETHER}`).medianNs / TOGETHER / rawNs, 2, '×');
  const verified = await signed.verify();
  console.log(`verify(): ${verified.rows.toLocaleString('en-US')} signed rows, ok=${verified.ok}`);
  closeRaw();
  plain.close();
  signed.close();
}

function find(rows: readonly BenchRow[], prefix: string): BenchRow {
  const found = rows.find((row) => row.name.startsWith(prefix));
  if (found === undefined) throw new Error(`no row ${prefix}`);
  return found;
}

/**
 * A better-sqlite3 connection in the journal's own mode: WAL, its
 * `synchronous` setting and, under NORMAL, its checkpoints on a worker
 * thread (told of each commit, as the journal tells it).
 */
function rawConnection(file: string, synchronous: 'NORMAL' | 'FULL'): { db: Database.Database; committed: () => void; close: () => void } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  const checkpointer = synchronous === 'NORMAL' ? new WalCheckpointer(db, file) : undefined;
  return {
    db,
    committed: () => checkpointer?.committed(),
    close: () => {
      checkpointer?.close();
      db.close();
    },
  };
}

/** The durable floor of one effect-tier call: a claim row committed, then a settle row committed, each its own transaction. */
function floorWriter(file: string, synchronous: 'NORMAL' | 'FULL' = 'NORMAL'): () => void {
  const { db: raw, committed } = rawConnection(file, synchronous);
  raw.exec('CREATE TABLE claims (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, key TEXT NOT NULL, state TEXT NOT NULL, body TEXT NOT NULL)');
  raw.exec('CREATE TABLE receipts (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, key TEXT NOT NULL, tool TEXT NOT NULL, body TEXT NOT NULL)');
  const claim = raw.prepare('INSERT INTO claims (at, key, state, body) VALUES (?, ?, ?, ?)');
  const settle = raw.prepare('INSERT INTO receipts (at, key, tool, body) VALUES (?, ?, ?, ?)');
  const claimTx = raw.transaction((key: string) => claim.run(Date.now(), key, 'claimed', JSON.stringify({ callId: key, tool: 'write_note', arguments: { path: 'notes/today.md', content: 'x'.repeat(200) } })));
  const settleTx = raw.transaction((key: string) => {
    settle.run(Date.now(), key, 'write_note', JSON.stringify({ ok: true, value: { bytes: 200 }, receipt: receipt(0) }));
    claim.run(Date.now(), key, 'settled', '{}');
  });
  let index = 0;
  return () => {
    const key = `k${(index += 1)}`;
    claimTx.immediate(key);
    committed();
    settleTx.immediate(key);
    committed();
  };
}

async function dispatchBench(dir: string): Promise<void> {
  const plainJournal = createSqliteJournal(join(dir, 'dispatch.db'), { onUnresolved: () => undefined });
  const signedJournal = createSqliteJournal(join(dir, 'dispatch-signed.db'), { sign: { keyDir: join(dir, 'keys') }, onUnresolved: () => undefined });
  // node:crypto's SHA-256 for the digests, as the Node host and the CLI supply it.
  const bare = createToolRegistry({ tools: [WRITE_NOTE], sha256: nodeSha256 });
  const journaled = createToolRegistry({ tools: [WRITE_NOTE], journal: plainJournal, sha256: nodeSha256 });
  const signed = createToolRegistry({ tools: [WRITE_NOTE], journal: signedJournal, sha256: nodeSha256 });
  const context = { grantedTools: ['write_note'], runId: 'bench' };
  const args = { path: 'notes/today.md', content: 'x'.repeat(200) };
  let id = 0;
  const call = (registry: typeof bare) => registry.dispatch({ callId: `c${(id += 1)}`, name: 'write_note', arguments: args }, context);
  const floor = floorWriter(join(dir, 'floor.db'));
  await settleFirst(floor, () => call(journaled), () => call(signed));
  const rows = await bench(
    [
      { name: 'floor: raw claim + settle commits (better-sqlite3, WAL, NORMAL)', run: floor },
      { name: 'effect-tier dispatch, no journal', run: () => call(bare) },
      { name: 'effect-tier dispatch, SQLite journal (claim + settle)', run: () => call(journaled) },
      { name: 'effect-tier dispatch, SQLite journal, signed', run: () => call(signed) },
    ],
    { title: 'Dispatch overhead of the durable effect bracket (ratio vs the floor)', batch: 200, rounds: 15, warmup: 2 },
  );
  const floorNs = find(rows, 'floor').medianNs;
  checkGoal('effect-tier add, SQLite journal vs the floor', find(rows, 'effect-tier dispatch, SQLite journal (claim').medianNs / floorNs, 1.5, '×');
  checkGoal('effect-tier add, SQLite journal signed vs the floor', find(rows, 'effect-tier dispatch, SQLite journal, signed').medianNs / floorNs, 1.7, '×');
  plainJournal.close();
  signedJournal.close();
  await inFlightBench(dir, call);
  await fullSyncBench(dir, call);
}

/**
 * Group commit under `synchronous = NORMAL`: 64 calls dispatched together
 * against one at a time, on journals of their own. A table of its own: 64
 * calls in flight leave more garbage per operation than every other row
 * together, and its collection would land on the floor's and the single
 * call's time in the table above.
 */
async function inFlightBench(dir: string, call: (registry: ReturnType<typeof createToolRegistry>) => Promise<unknown>): Promise<void> {
  const oneJournal = createSqliteJournal(join(dir, 'dispatch-1.db'), { onUnresolved: () => undefined });
  const manyJournal = createSqliteJournal(join(dir, 'dispatch-64.db'), { onUnresolved: () => undefined });
  const one = createToolRegistry({ tools: [WRITE_NOTE], journal: oneJournal, sha256: nodeSha256 });
  const many = createToolRegistry({ tools: [WRITE_NOTE], journal: manyJournal, sha256: nodeSha256, limits: ALL_AT_ONCE });
  // The calls in flight settle their journal in their own warm-up rounds (64 calls an operation).
  await settleFirst(() => call(one));
  const rows = await bench(
    [
      { name: 'effect-tier dispatch, SQLite journal, one at a time', run: () => call(one) },
      // Timed per 64 calls: their claims share commits, so do their settles.
      { name: `effect-tier dispatch, SQLite journal, ${TOGETHER} in flight`, run: () => Promise.all(Array.from({ length: TOGETHER }, () => call(many))) },
    ],
    { title: 'Group commit with synchronous NORMAL (ratio vs one at a time)', batch: 200, rounds: 15, warmup: 2 },
  );
  const oneAtATime = find(rows, 'effect-tier dispatch, SQLite journal, one').medianNs;
  const perCallInFlight = find(rows, `effect-tier dispatch, SQLite journal, ${TOGETHER}`).medianNs / TOGETHER;
  console.log(`${TOGETHER} in flight: ${Math.round(1e9 / perCallInFlight).toLocaleString('en-US')} calls/s; one at a time: ${Math.round(1e9 / oneAtATime).toLocaleString('en-US')} calls/s`);
  checkGoal('64 effect-tier calls in flight: calls/s vs one at a time', oneAtATime / perCallInFlight, 4, '×', 'at least');
  oneJournal.close();
  manyJournal.close();
}

/**
 * The same calls with `synchronous: 'full'`, where every commit waits for
 * fsync: what group commit buys when a commit is expensive. (With NORMAL a
 * commit is an append to the WAL, so sharing it saves less.) Its floor is
 * the same two raw commits, each waiting for fsync too.
 */
async function fullSyncBench(dir: string, call: (registry: ReturnType<typeof createToolRegistry>) => Promise<unknown>): Promise<void> {
  const oneJournal = createSqliteJournal(join(dir, 'full-1.db'), { synchronous: 'full', onUnresolved: () => undefined });
  const manyJournal = createSqliteJournal(join(dir, 'full-64.db'), { synchronous: 'full', onUnresolved: () => undefined });
  const one = createToolRegistry({ tools: [WRITE_NOTE], journal: oneJournal, sha256: nodeSha256 });
  const many = createToolRegistry({ tools: [WRITE_NOTE], journal: manyJournal, sha256: nodeSha256, limits: ALL_AT_ONCE });
  const floor = floorWriter(join(dir, 'full-floor.db'), 'FULL');
  const rows = await bench(
    [
      { name: 'floor: raw claim + settle commits (better-sqlite3, WAL, FULL)', run: floor },
      { name: 'effect-tier dispatch, synchronous FULL, one at a time', run: () => call(one) },
      { name: `effect-tier dispatch, synchronous FULL, ${TOGETHER} in flight`, run: () => Promise.all(Array.from({ length: TOGETHER }, () => call(many))) },
    ],
    { title: 'Group commit when every commit waits for fsync (synchronous FULL)', batch: 20, rounds: 7, warmup: 1 },
  );
  const floorNs = find(rows, 'floor').medianNs;
  const oneNs = find(rows, 'effect-tier dispatch, synchronous FULL, one').medianNs;
  const manyNs = find(rows, `effect-tier dispatch, synchronous FULL, ${TOGETHER}`).medianNs / TOGETHER;
  console.log(`synchronous FULL: ${TOGETHER} in flight ${Math.round(1e9 / manyNs).toLocaleString('en-US')} calls/s = ${(oneNs / manyNs).toFixed(1)}× one at a time (${Math.round(1e9 / oneNs).toLocaleString('en-US')} calls/s); one at a time ${(oneNs / floorNs).toFixed(2)}× its floor`);
  oneJournal.close();
  manyJournal.close();
}

/**
 * What a signed journal's walk below its head costs at open: the same file
 * of 10,000 effect-tier calls opened without a key (no walk) and with it
 * (every row's link and hash checked, and the head's signature).
 */
async function openBench(dir: string): Promise<void> {
  const file = join(dir, 'open.db');
  const keys = { keyDir: join(dir, 'open-keys') };
  const built = createSqliteJournal(file, { sign: keys, onUnresolved: () => undefined });
  const registry = createToolRegistry({ tools: [WRITE_NOTE], journal: built, sha256: nodeSha256 });
  for (let index = 0; index < 10_000; index += 1) await registry.dispatch({ callId: `o${index}`, name: 'write_note', arguments: { path: 'notes/today.md', content: 'x'.repeat(200) } }, { grantedTools: ['write_note'], runId: 'open' });
  const rows = built.head().seq;
  built.close();
  const result = await bench(
    [
      { name: `open a journal of ${rows.toLocaleString('en-US')} rows without a key`, run: () => createSqliteJournal(file, { onUnresolved: () => undefined }).close() },
      { name: `open it signed (walks the chain below the head)`, run: () => createSqliteJournal(file, { sign: keys, onUnresolved: () => undefined }).close() },
    ],
    { title: 'Opening a signed journal (ratio vs opening it without a key)', batch: 1, rounds: 7, warmup: 1 },
  );
  const walkNs = find(result, 'open it signed').medianNs - find(result, 'open a journal').medianNs;
  console.log(`the walk below the head: ${(walkNs / 1e6).toFixed(0)} ms for ${rows.toLocaleString('en-US')} rows, ${(walkNs / rows / 1000).toFixed(1)} µs a row`);
}

/**
 * Two journals on one file, as a gateway and a `toolgate call` share it:
 * one records a call, the other looks it up. Signed, the other walks the
 * new row before it reads it, and checks the new head's signature.
 */
async function sharedFileBench(dir: string): Promise<void> {
  const keys = { keyDir: join(dir, 'shared-keys') };
  const open = (file: string, sign: boolean) => createSqliteJournal(join(dir, file), { onUnresolved: () => undefined, ...(sign ? { sign: keys } : {}) });
  const pairs = { plain: [open('shared.db', false), open('shared.db', false)], signed: [open('shared-signed.db', true), open('shared-signed.db', true)] } as const;
  let index = 0;
  const recordThenLookUp = async ([writer, reader]: readonly [SqliteJournal, SqliteJournal]): Promise<void> => {
    const call = receipt((index += 1));
    await writer.settle(undefined, { ok: true, value: index, content: 'ok', receipt: call });
    await reader.lookup(`${call.actionDigest ?? ''}:${call.callId}`);
  };
  await bench(
    [
      { name: 'one journal records a call, another on the file looks it up', run: () => recordThenLookUp(pairs.plain) },
      { name: 'the same, signed (the other walks the new row, checks the new head)', run: () => recordThenLookUp(pairs.signed) },
    ],
    { title: 'Two journals on one file (ratio vs without a key)', batch: 200, rounds: 9, warmup: 1 },
  );
  for (const journal of [...pairs.plain, ...pairs.signed]) journal.close();
}
