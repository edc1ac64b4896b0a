/**
 * The anchor kept outside the journal file: how it is written (atomically,
 * privately, never backwards, left alone once the file stops matching) and
 * what `verify({ anchor })` names for each way the file can be cut, rewritten
 * or replaced by a writer with access to it.
 */
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { closeJournal, closeJournals, journalAt as plainAt, journalPath, keyDir, settle, tamper, forgeReceiptRelinked, useTestFolder } from './__fixtures__/tampering.js';
import { createSqliteJournal, type SqliteJournalOptions } from './create-sqlite-journal.js';
import { anchorPathFor, parseAnchor, readJournalAnchor, type JournalAnchor } from './journal-anchor.js';
import { GENESIS_HASH } from './row-hash.js';
import { CHAINED_TABLES } from './schema.js';
import type { SqliteJournal } from './sqlite-journal.js';

useTestFolder();

const dbPath = (name = 'journal.db'): string => journalPath(name);
const anchorPath = (): string => journalPath('journal.anchor');

/** A writer that keeps the anchor, as the gateway does. */
function journalAt(options: SqliteJournalOptions = {}, path = dbPath()): SqliteJournal {
  return plainAt({ anchor: anchorPath(), ...options }, path);
}

function anchor(): JournalAnchor {
  const found = readJournalAnchor(anchorPath());
  if (found === undefined) throw new Error('no anchor');
  return found;
}

/** Delete the newest rows, as a writer hiding its last calls would. */
function cutTail(path: string, fromSeq: number): void {
  tamper(path, (db) => {
    for (const table of CHAINED_TABLES) db.prepare(`DELETE FROM ${table} WHERE seq >= ?`).run(fromSeq);
  });
}

describe('the anchor a journal keeps', () => {
  it('is written at open, after a commit batch and at close: the chain length and head, the file id, mode 0600, beside the journal', async () => {
    expect(anchorPathFor(dbPath())).toBe(anchorPath());
    const journal = journalAt();
    expect(anchor()).toMatchObject({ version: 1, rows: 0, head: GENESIS_HASH, journal: journal.journalId });
    expect(statSync(anchorPath()).mode & 0o777).toBe(0o600);
    await settle(journal, 1, 3);
    // One batch: written within moments of the commits, not per row.
    await expect.poll(() => anchor().rows).toBe(3);
    expect(anchor().head).toBe(journal.head().hash);
    await journal.append({ type: 'note', at: Date.now(), data: {} });
    journal.close();
    expect(anchor()).toMatchObject({ rows: 4, head: expect.any(String) });
    expect(anchor().signature).toBeUndefined();
  });

  it('is signed with the journal key when signing is on, and the signature covers every field', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    const publicKey = journal.publicKey as string;
    await settle(journal, 1, 2);
    journal.close();
    const signed = anchor();
    expect(signed).toMatchObject({ keyId: expect.any(String), signature: expect.any(String) });
    const auditor = plainAt({ publicKey });
    expect(await auditor.verify({ anchor: signed })).toMatchObject({ ok: true, anchor: { case: 'matches' } });
    // Every field is covered: a moved head, another time or another file id fails the signature.
    for (const forged of [{ ...signed, rows: 1 }, { ...signed, at: signed.at + 1 }, { ...signed, head: 'f'.repeat(64) }]) {
      expect(await auditor.verify({ anchor: forged })).toMatchObject({ ok: false, anchor: { case: 'bad-signature' }, firstBadRow: { table: 'anchor' } });
    }
    const { signature: _signature, keyId: _keyId, ...unsigned } = signed;
    expect(await auditor.verify({ anchor: unsigned })).toMatchObject({ ok: false, anchor: { case: 'unsigned' } });
  });

  it('never goes backwards with two writers on one file, and ends at the file head', async () => {
    const writers = [journalAt(), journalAt()];
    const seen: number[] = [];
    for (let round = 0; round < 8; round += 1) {
      await settle(writers[round % 2] as SqliteJournal, round * 2 + 1, round * 2 + 2);
      // Some rounds let the batch timers fire, some do not: the writers' flushes interleave every way.
      if (round % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 40));
      seen.push(anchor().rows);
    }
    // The writer whose last commit is older closes last: its view is stale, and it must not pull the anchor back.
    for (const writer of [writers[1], writers[0]] as SqliteJournal[]) {
      writer.close();
      seen.push(anchor().rows);
    }
    expect(seen).toEqual([...seen].sort((left, right) => left - right));
    const reader = plainAt();
    expect(anchor()).toMatchObject({ rows: 16, head: reader.head().hash });
  });

  it('stops advancing, and reports once, when the file no longer holds the anchored head', async () => {
    const problems: string[] = [];
    const journal = journalAt({ onAnchorProblem: (problem) => problems.push(problem) });
    await settle(journal, 1, 5);
    journal.close();
    const before = anchor();
    cutTail(dbPath(), 4);
    const reopened = journalAt({ onAnchorProblem: (problem) => problems.push(problem) });
    await settle(reopened, 10, 12);
    reopened.close();
    expect(anchor()).toEqual(before);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('cut tail: the journal has 3 rows, the anchor recorded 5');
    expect(reopened.anchor?.mismatch).toBe('cut tail: the journal has 3 rows, the anchor recorded 5');
  });

  it('refuses an anchor path that is a symbolic link, and a malformed anchor is an error, never ignored', async () => {
    writeFileSync(anchorPath(), 'not json');
    const problems: string[] = [];
    journalAt({ onAnchorProblem: (problem) => problems.push(problem) });
    expect(problems[0]).toContain('the anchor file is unreadable');
    expect(readFileSync(anchorPath(), 'utf8')).toBe('not json');
    expect(() => parseAnchor('{"version":1,"journal":"a","rows":-1,"head":"x","at":1}')).toThrow(/not a toolgate journal anchor/);
    closeJournals();
    rmSync(anchorPath());
    symlinkSync(journalPath('elsewhere'), anchorPath());
    journalAt({ onAnchorProblem: (problem) => problems.push(problem) });
    expect(problems[1]).toContain('must not be a symbolic link');
    expect(existsSync(journalPath('elsewhere'))).toBe(false);
  });
});

describe('verify({ anchor }) names what happened to the file', () => {
  async function anchoredJournal(rows: number, options: SqliteJournalOptions = {}): Promise<JournalAnchor> {
    const journal = journalAt(options);
    await settle(journal, 1, rows);
    closeJournal(journal);
    return anchor();
  }
  const auditor = (options: SqliteJournalOptions = {}) => plainAt(options);

  it('matches an untouched file; rows written since are beyond the anchor, a pass unless strict', async () => {
    const kept = await anchoredJournal(4);
    expect(await auditor().verify({ anchor: kept })).toMatchObject({ ok: true, anchor: { case: 'matches' } });
    await settle(auditor(), 5, 6);
    const grown = await auditor().verify({ anchor: kept });
    expect(grown).toMatchObject({ ok: true, anchor: { case: 'beyond', message: '2 rows beyond the anchor (written after it, or the anchor is stale): the anchor recorded 4, the journal has 6' } });
    expect(await auditor().verify({ anchor: kept, strictAnchor: true })).toMatchObject({ ok: false, firstBadRow: { table: 'anchor', id: 4 } });
  });

  it('a cut tail (newest rows deleted, triggers put back): the counts', async () => {
    const kept = await anchoredJournal(5);
    cutTail(dbPath(), 4);
    const result = await auditor().verify({ anchor: kept });
    expect(result).toMatchObject({ ok: false, anchor: { case: 'cut-tail' }, firstBadRow: { table: 'anchor', id: 5, problem: 'cut tail: the journal has 3 rows, the anchor recorded 5' } });
    // Without the anchor the shorter chain verifies: that is what the anchor is for.
    expect((await auditor().verify()).ok).toBe(true);
  });

  it('a chain rewritten and re-hashed to the same length: the head differs', async () => {
    const kept = await anchoredJournal(4);
    tamper(dbPath(), (db) => {
      forgeReceiptRelinked(db, 2);
    });
    expect(await auditor().verify({ anchor: kept })).toMatchObject({ ok: false, anchor: { case: 'differs', message: 'the head at row 4 differs from the anchor (rewritten or swapped file)' } });
  });

  it('another journal copied over the file, or the file deleted and recreated: replaced, by its id', async () => {
    const kept = await anchoredJournal(3);
    const other = createSqliteJournal(dbPath('other.db'), { onUnresolved: () => undefined });
    await settle(other, 1, 6);
    other.close();
    copyFileSync(dbPath('other.db'), dbPath());
    rmSync(`${dbPath()}-wal`, { force: true });
    rmSync(`${dbPath()}-shm`, { force: true });
    const swapped = await auditor().verify({ anchor: kept });
    expect(swapped).toMatchObject({ ok: false, anchor: { case: 'replaced' }, firstBadRow: { table: 'anchor' } });
    expect(swapped.anchor.message).toContain(`the anchor was taken from journal ${kept.journal}`);
    closeJournals();
    rmSync(dbPath());
    const recreated = plainAt();
    await settle(recreated, 1, 3);
    expect(await recreated.verify({ anchor: kept })).toMatchObject({ ok: false, anchor: { case: 'replaced' } });
  });

  it('a row deleted in the middle is the chain break itself; the anchor says it was not reached', async () => {
    const kept = await anchoredJournal(5);
    tamper(dbPath(), (db) => db.prepare('DELETE FROM receipts WHERE seq = 2').run());
    const result = await auditor().verify({ anchor: kept });
    expect(result).toMatchObject({ ok: false, firstBadRow: { table: 'receipts', id: 3, problem: 'rows 2–2 are missing (deleted)' }, anchor: { case: 'not-reached' } });
  });

  it('survives compaction of the anchored rows, and compaction checks the kept anchor first', async () => {
    const keys = keyDir();
    const journal = journalAt({ sign: { keyDir: keys } });
    await settle(journal, 1, 4);
    closeJournal(journal);
    const kept = anchor();
    const compacting = journalAt({ sign: { keyDir: keys } });
    await compacting.compact({ before: Date.now() + 1000 });
    expect((await compacting.verify({ anchor: kept })).anchor.case).toBe('beyond');
    closeJournal(compacting);
    // A tail cut behind the kept anchor: the next compaction refuses to sign over it.
    await settle(journalAt({ sign: { keyDir: keys } }), 10, 12);
    closeJournals();
    const before = anchor();
    cutTail(dbPath(), before.rows);
    const refusing = journalAt({ sign: { keyDir: keys }, onAnchorProblem: () => undefined });
    await expect(refusing.compact({ before: Date.now() + 1000 })).rejects.toThrow(/cannot be compacted/);
  });

  // Without a key no checkpoint vouches for a dropped row: an anchor still naming one, as a process killed within the
  // anchor's batch after a compaction left it, made `verify` report the user's journal as not the user's.
  it('of a journal without a key moves past the rows compaction drops as the compaction returns', async () => {
    const journal = journalAt();
    await settle(journal, 1, 4);
    await expect.poll(() => anchor().rows).toBe(4);
    const { throughSeq } = await journal.compact({ before: Date.now() + 1000 });
    expect(throughSeq).toBe(4);
    expect(anchor()).toMatchObject({ rows: journal.head().seq, head: journal.head().hash });
    const result = await auditor().verify({ anchor: anchor() });
    expect(result).toMatchObject({ ok: true });
    closeJournal(journal);
  });
});
