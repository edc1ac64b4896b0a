import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteJournal } from './create-sqlite-journal.js';
import { readJournalFile } from './read-journal-file.js';

const folder = (): string => mkdtempSync(join(tmpdir(), 'toolgate-journal-file-read-'));
const refusal = (tool = 'read_file') => ({ type: 'call-refused', at: 1, data: { tool } }) as const;

/** A journal at `file` holding `rows` refused calls of `tool`; its id and head. */
async function journalAt(file: string, rows: number, tool?: string): Promise<{ id: string; head: { seq: number; hash: string } }> {
  const journal = createSqliteJournal(file, { onUnresolved: () => undefined });
  for (let row = 0; row < rows; row += 1) await journal.append(refusal(tool));
  const made = { id: journal.journalId ?? '', head: journal.head() };
  journal.close();
  return made;
}

describe('readJournalFile', () => {
  it('reads the id and the head the journal holds, and changes nothing in the file', async () => {
    const file = join(folder(), 'journal.db');
    const made = await journalAt(file, 3);
    const bytes = readFileSync(file);
    expect(made.id).toMatch(/^[0-9a-f]{32}$/);
    expect(readJournalFile(file)).toEqual({ id: made.id, head: made.head });
    expect(readJournalFile(file, { heads: [made.head], walk: true })).toMatchObject({ holds: true });
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('reads a journal another connection holds open, its rows still in the write-ahead log', async () => {
    const file = join(folder(), 'journal.db');
    const journal = createSqliteJournal(file, { onUnresolved: () => undefined });
    try {
      await journal.append(refusal());
      expect(readJournalFile(file, { heads: [journal.head()], walk: true })).toEqual({ id: journal.journalId, head: journal.head(), holds: true });
    } finally {
      journal.close();
    }
  });

  it('does not hold a head it was not left with: another journal in its place, with its id, or rows rewritten before it', async () => {
    const dir = folder();
    const mine = await journalAt(join(dir, 'mine.db'), 3);
    const other = await journalAt(join(dir, 'other.db'), 5, 'write_file');
    expect(readJournalFile(join(dir, 'other.db'), { heads: [mine.head], walk: false })?.holds).toBe(false);
    // The stored hash alone is not the row: a forged row that names the head's hash does not hash to it.
    const Database = (await import('better-sqlite3')).default;
    const forged = new Database(join(dir, 'other.db'));
    forged.exec(`DROP TRIGGER events_no_update; UPDATE events SET hash = '${mine.head.hash}' WHERE seq = ${mine.head.seq}`);
    forged.close();
    expect(readJournalFile(join(dir, 'other.db'), { heads: [mine.head], walk: false })?.holds).toBe(false);
    expect(other.id).not.toBe(mine.id);
  });

  it('does not hold a head compaction took out, though a checkpoint names it: anyone who read the pair can write one; the new head is held', async () => {
    const file = join(folder(), 'journal.db');
    const journal = createSqliteJournal(file, { onUnresolved: () => undefined });
    try {
      for (let row = 0; row < 3; row += 1) await journal.append(refusal());
      const head = journal.head();
      await journal.compact({ before: Date.now() + 60_000 });
      expect(journal.head().seq).toBeGreaterThan(head.seq);
      expect(readJournalFile(file, { heads: [head], walk: false })?.holds).toBe(false);
      expect(readJournalFile(file, { heads: [journal.head()], walk: true })?.holds).toBe(true);
      // Any one of the rows recorded (a copy's, the journal's own) is enough.
      expect(readJournalFile(file, { heads: [head, journal.head()], walk: true })?.holds).toBe(true);
    } finally {
      journal.close();
    }
  });

  it('is undefined for no file, an empty file and a file that is no database', () => {
    const dir = folder();
    expect(readJournalFile(join(dir, 'missing.db'))).toBeUndefined();
    writeFileSync(join(dir, 'empty.db'), '');
    expect(readJournalFile(join(dir, 'empty.db'))).toBeUndefined();
    writeFileSync(join(dir, 'text.db'), 'not a database at all, but long enough to be read as a header of one'.repeat(4));
    expect(readJournalFile(join(dir, 'text.db'))).toBeUndefined();
  });

  it('refuses a link, even to a journal, and a named pipe, at once', async () => {
    const dir = folder();
    const file = join(dir, 'journal.db');
    await journalAt(file, 1);
    symlinkSync(file, join(dir, 'linked.db'));
    expect(() => readJournalFile(join(dir, 'linked.db'))).toThrow('must be a regular file, not a link');
    execFileSync('mkfifo', [join(dir, 'pipe.db')]);
    expect(() => readJournalFile(join(dir, 'pipe.db'))).toThrow('must be a regular file, not a link');
  });
});
