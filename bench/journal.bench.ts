/**
 * The journal's cost: receipts appended per second (hash-chained, with and
 * without Ed25519 signing) against raw better-sqlite3 inserts of the same
 * rows, and the dispatch overhead the journal adds to an effect-tier call.
 * Same process, interleaved rounds, WAL + synchronous=NORMAL throughout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createToolRegistry, type ToolDefinition, type ToolReceipt } from 'toolgate';
import { createSqliteJournal } from 'toolgate/sqlite';
import { bench } from './harness.js';

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
    await dispatchBench(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function appendBench(dir: string): Promise<void> {
  const raw = new Database(join(dir, 'raw.db'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.exec('CREATE TABLE receipts (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, key TEXT NOT NULL, run_id TEXT, tool TEXT NOT NULL, action_digest TEXT, body TEXT NOT NULL)');
  const insert = raw.prepare('INSERT INTO receipts (at, key, run_id, tool, action_digest, body) VALUES (?, ?, ?, ?, ?, ?)');
  const plain = createSqliteJournal(join(dir, 'plain.db'), { onUnresolved: () => undefined });
  const signed = createSqliteJournal(join(dir, 'signed.db'), { sign: { keyDir: join(dir, 'keys') }, onUnresolved: () => undefined });
  let rawIndex = 0;
  let plainIndex = 0;
  let signedIndex = 0;
  const settleInput = (index: number) => ({ ok: true, value: { bytes: 1024 }, content: 'Wrote 1024 bytes.', receipt: receipt(index) });
  await bench(
    [
      {
        name: 'raw better-sqlite3 insert (same row)',
        run: () => {
          const r = receipt((rawIndex += 1));
          insert.run(Date.now(), `${r.actionDigest ?? ''}:${r.callId}`, null, r.tool, r.actionDigest ?? null, JSON.stringify(settleInput(rawIndex)));
        },
      },
      { name: 'journal.settle, hash chain', run: () => plain.settle(undefined, settleInput((plainIndex += 1))) },
      { name: 'journal.settle, hash chain + Ed25519', run: () => signed.settle(undefined, settleInput((signedIndex += 1))) },
    ],
    { title: 'Receipts appended (one transaction each)', batch: 200, rounds: 15, warmup: 2 },
  );
  const verified = await signed.verify();
  console.log(`verify(): ${verified.rows.toLocaleString('en-US')} signed rows, ok=${verified.ok}`);
  raw.close();
  plain.close();
  signed.close();
}

async function dispatchBench(dir: string): Promise<void> {
  const write: ToolDefinition<{ path: string; content: string }, { bytes: number }> = {
    name: 'write_note',
    description: 'Write a note.',
    input: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
    journal: 'effect',
    dispatch: (args) => ({ bytes: args.content.length }),
  };
  const plainJournal = createSqliteJournal(join(dir, 'dispatch.db'), { onUnresolved: () => undefined });
  const signedJournal = createSqliteJournal(join(dir, 'dispatch-signed.db'), { sign: { keyDir: join(dir, 'keys') }, onUnresolved: () => undefined });
  const bare = createToolRegistry({ tools: [write] });
  const journaled = createToolRegistry({ tools: [write], journal: plainJournal });
  const signed = createToolRegistry({ tools: [write], journal: signedJournal });
  const context = { grantedTools: ['write_note'], runId: 'bench' };
  const args = { path: 'notes/today.md', content: 'x'.repeat(200) };
  let id = 0;
  const call = (registry: typeof bare) => registry.dispatch({ callId: `c${(id += 1)}`, name: 'write_note', arguments: args }, context);
  await bench(
    [
      { name: 'effect-tier dispatch, no journal', run: () => call(bare) },
      { name: 'effect-tier dispatch, SQLite journal (claim + settle)', run: () => call(journaled) },
      { name: 'effect-tier dispatch, SQLite journal, signed', run: () => call(signed) },
    ],
    { title: 'Dispatch overhead of the durable effect bracket', batch: 200, rounds: 15, warmup: 2 },
  );
  plainJournal.close();
  signedJournal.close();
}
