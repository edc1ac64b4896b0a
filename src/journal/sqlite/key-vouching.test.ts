import type Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { KeyVouching } from './key-vouching.js';
import type { ReceiptSigner } from './receipt-signer.js';
import { appendForged } from './__fixtures__/forge-row.js';
import { useSignedJournalFile } from './__fixtures__/journal-folder.js';

const file = useSignedJournalFile('toolgate-key-vouching-');
let db: Database.Database;
let signer: ReceiptSigner;
beforeEach(() => ({ db, signer } = file.open()));

const event = { at: 1, type: 'note', body: '{}' };

describe('KeyVouching', () => {
  it('vouches for a head the key signed, and for none a writer without it appended', () => {
    const store = new ChainStore(db, signer);
    const signed = store.write(() => store.append('events', event));
    const vouching = new KeyVouching(db, signer);
    expect(vouching.checkedHead(vouching.headRow()!)).toEqual(signed);
    expect(vouching.lastVouched()).toEqual(signed);
    const forged = appendForged(db, 'events', { ...event, key_id: null });
    expect(() => vouching.checkedHead(vouching.headRow()!)).toThrow(`ends on a row that is not signed with the journal's key (events #${forged.seq})`);
    // The rows below the last signed one are still vouched for; none past it.
    expect(vouching.lastVouched()).toEqual(signed);
    expect(vouching.unsignedTail(true)).toEqual({ from: forged.seq, through: forged.seq, head: forged.hash });
  });

  it('names no tail that begins past a made-up signature: refused when named to an operator, none for a key made just now', () => {
    const store = new ChainStore(db, signer);
    store.write(() => store.append('events', event));
    const fake = appendForged(db, 'events', { ...event, key_id: null });
    db.exec('DROP TRIGGER events_no_update');
    db.prepare('UPDATE events SET signature = ? WHERE seq = ?').run('A'.repeat(88), fake.seq);
    appendForged(db, 'events', { ...event, key_id: null });
    const vouching = new KeyVouching(db, signer);
    expect(() => vouching.unsignedTail(true)).toThrow(`ends on unsigned rows past events #${fake.seq}`);
    expect(vouching.unsignedTail(false)).toBeUndefined();
  });

  it('vouches for a head an operator signs over, until that is taken back', () => {
    const forged = appendForged(db, 'events', { ...event, key_id: null });
    const vouching = new KeyVouching(db, signer);
    expect(vouching.lastVouched()).toBeUndefined();
    vouching.vouchFor(forged);
    expect(vouching.checkedHead(vouching.headRow()!)).toEqual(forged);
    vouching.vouchFor(undefined);
    expect(() => vouching.checkedHead(vouching.headRow()!)).toThrow('not signed');
  });
});
