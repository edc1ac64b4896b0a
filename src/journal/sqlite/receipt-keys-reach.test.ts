import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteJournal } from './create-sqlite-journal.js';
import { FOLD_AT, receiptKeysProblem } from './receipt-keys.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { dir, open } = useJournalFolder('toolgate-receipt-keys-reach-');

type Journal = ReturnType<typeof createSqliteJournal>;

const settle = (journal: Journal, callId: string) =>
  journal.settle(undefined, { ok: true, value: callId, content: callId, receipt: { callId, tool: 'bump', actionDigest: 'act', status: 'ok', code: 'OK' } as never });

describe('the reach of the receipt key index, changed in the file', () => {
  for (const [name, reach] of [
    ['not a number', 'x'],
    ['infinite', '1e999'],
    ['past the chain', '1000000'],
  ] as const) {
    it(`${name}: verify() reports it, and no connection records a call that others would not find`, async () => {
      const path = join(dir(), 'journal.db');
      const writer = createSqliteJournal(path, { onUnresolved: () => undefined });
      for (let index = 0; index <= FOLD_AT; index += 1) await settle(writer, `c${index}`);
      writer.close();
      // Every receipt put in receipt_keys: the entries say what the receipts say, and only the reach is wrong.
      const db = open();
      db.prepare(`INSERT OR IGNORE INTO receipt_keys (key, seq) SELECT key, seq FROM receipts`).run();
      db.prepare(`UPDATE meta SET value = ? WHERE name = 'receipt_keys_through'`).run(reach);
      expect(receiptKeysProblem(db)).toEqual({ table: 'meta', id: 0, problem: expect.stringContaining('reaches past the chain') });
      const first = createSqliteJournal(path, { onUnresolved: () => undefined });
      const second = createSqliteJournal(path, { onUnresolved: () => undefined });
      expect((await first.verify()).firstBadRow).toMatchObject({ table: 'meta' });
      // Read as it was, the reach hid every later receipt from every other connection and from a restart: the call ran again.
      await expect(settle(second, 'late')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
      await expect(first.lookup('act:c0')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
      second.close();
      first.close();
      expect(db.prepare(`SELECT count(*) FROM receipts WHERE key = 'act:late'`).pluck().get()).toBe(0);
    });
  }
});
