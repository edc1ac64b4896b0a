import type Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import type { AppendObserver } from './chain-types.js';
import { ChainWalk } from './chain-walk.js';
import { KeyVouching } from './key-vouching.js';
import type { ReceiptSigner } from './receipt-signer.js';
import type { ChainedTable } from './schema.js';
import { appendForged } from './__fixtures__/forge-row.js';
import { useSignedJournalFile } from './__fixtures__/journal-folder.js';

const file = useSignedJournalFile('toolgate-chain-walk-');
let db: Database.Database;
let signer: ReceiptSigner;
beforeEach(() => ({ db, signer } = file.open()));

const event = { at: 1, type: 'note', body: '{}' };

/** A walk whose observer records each row it is handed, and the problems it is told of. */
function walker(): { walk: ChainWalk; handed: string[]; problems: string[]; run: () => void } {
  const handed: string[] = [];
  const problems: string[] = [];
  const observer: AppendObserver = { appended: () => undefined, ended: () => undefined, walked: (table: ChainedTable, seq: number) => handed.push(`${table} #${seq}`) };
  const walk = new ChainWalk(db, [observer]);
  const vouching = new KeyVouching(db, signer);
  let version = 0;
  return { walk, handed, problems, run: () => walk.walk((version += 1), vouching, (problem) => problems.push(problem)) };
}

describe('ChainWalk', () => {
  it('hands over the rows up to the last one the key signed, and none a writer without it appended past it', () => {
    const store = new ChainStore(db, signer);
    store.write(() => {
      store.append('events', event);
      store.append('events', event);
    });
    appendForged(db, 'events', { ...event, key_id: null });
    const { walk, handed, problems, run } = walker();
    run();
    expect(handed).toEqual(['events #1', 'events #2']);
    expect(problems).toEqual([]);
    expect(walk.walked?.seq).toBe(2);
  });

  it('is told of a row added under a number it has not walked yet, and hands over nothing from it on', () => {
    const store = new ChainStore(db, signer);
    store.write(() => store.append('events', event));
    const first = db.prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM events').get()!;
    store.write(() => store.append('events', event));
    store.write(() => store.append('events', event));
    appendForged(db, 'claims', { at: 1, claim_id: 'x', key: 'act:c1', state: 'released', body: '{}', key_id: null }, first);
    const { handed, problems, run } = walker();
    run();
    expect(handed).toEqual(['events #1']);
    expect(problems).toEqual([expect.stringContaining('#2: another table holds a row numbered 2 too')]);
  });

  it('raises the floor a compaction leaves only once the checkpoint that says so commits', () => {
    const walk = new ChainWalk(db, []);
    walk.checkpointWritten(5);
    walk.ended(false);
    expect(walk.floor).toBe(0);
    walk.checkpointWritten(5);
    walk.ended(true);
    expect(walk.floor).toBe(5);
  });
});
