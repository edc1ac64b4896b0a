import { describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { RunIndex } from './run-index.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { open } = useJournalFolder('toolgate-run-index-');

function connection(): { store: ChainStore; runs: RunIndex } {
  const db = open();
  migrateSchema(db);
  const store = new ChainStore(db, undefined);
  return { store, runs: new RunIndex(store) };
}

function receipt(store: ChainStore, runId: string | null, body: string): void {
  store.write(() => store.append('receipts', { at: 1, key: `k:${body}`, claim_id: null, run_id: runId, tool: 'bump', action_digest: null, body }));
}

const runRows = (store: ChainStore): unknown[] => store.db.prepare('SELECT run_id, first_seq FROM runs ORDER BY first_seq').all();

describe('RunIndex', () => {
  it("reads each run's receipts in order, among other runs' and from other connections, with one row per run", () => {
    const mine = connection();
    receipt(mine.store, 'a', '1');
    receipt(mine.store, 'b', '2');
    receipt(mine.store, null, '3');
    receipt(mine.store, 'a', '4');
    const other = connection();
    receipt(other.store, 'a', '5');
    receipt(other.store, 'c', '6');
    receipt(mine.store, 'c', '7');
    expect(mine.runs.bodies('a')).toEqual(['1', '4', '5']);
    expect(other.runs.bodies('c')).toEqual(['6', '7']);
    expect(mine.runs.bodies('b')).toEqual(['2']);
    expect(mine.runs.bodies('never')).toEqual([]);
    expect(runRows(mine.store)).toEqual([
      { run_id: 'a', first_seq: 1 },
      { run_id: 'b', first_seq: 2 },
      { run_id: 'c', first_seq: 6 },
    ]);
  });

  it('forgets a run noted in a transaction that rolled back: its next receipt writes the row', () => {
    const { store, runs } = connection();
    expect(() =>
      store.write(() => {
        store.append('receipts', { at: 1, key: 'k:lost', claim_id: null, run_id: 'a', tool: 'bump', action_digest: null, body: 'lost' });
        throw new Error('the commit failed');
      }),
    ).toThrow('the commit failed');
    expect(runRows(store)).toEqual([]);
    receipt(store, 'a', 'kept');
    expect(runs.bodies('a')).toEqual(['kept']);
  });

  it('takes over the runs of a journal written with the index of receipts by run, and drops that index', () => {
    const db = open();
    // Schema 4: the last before the runs table.
    migrateSchema(db, 4);
    const names = (): string[] => db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master`).all().map((row) => row.name);
    expect(names()).toContain('receipts_by_run');
    expect(names()).not.toContain('runs');
    const insert = db.prepare(`INSERT INTO receipts (seq, at, key, run_id, tool, body, prev_hash, hash) VALUES (?, 1, ?, ?, 'bump', ?, '', '')`);
    insert.run(3, 'k3', 'old', 'x');
    insert.run(5, 'k5', null, 'y');
    insert.run(8, 'k8', 'old', 'z');
    insert.run(9, 'k9', 'other', 'w');
    migrateSchema(db);
    expect(names()).not.toContain('receipts_by_run');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const runs = new RunIndex(new ChainStore(db, undefined));
    expect(runs.bodies('old')).toEqual(['x', 'z']);
    expect(runs.bodies('other')).toEqual(['w']);
  });
});
