import { execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteJournal } from './create-sqlite-journal.js';
import { readJournalId } from './read-journal-id.js';

const folder = (): string => mkdtempSync(join(tmpdir(), 'toolgate-journal-id-'));

describe('readJournalId', () => {
  it('reads the id the journal was made with, and changes nothing in the file', () => {
    const file = join(folder(), 'journal.db');
    const journal = createSqliteJournal(file, { onUnresolved: () => undefined });
    const id = journal.journalId;
    journal.close();
    const bytes = readFileSync(file);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(readJournalId(file)).toBe(id);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('is undefined for no file, an empty file and a file that is no database', () => {
    const dir = folder();
    expect(readJournalId(join(dir, 'missing.db'))).toBeUndefined();
    writeFileSync(join(dir, 'empty.db'), '');
    expect(readJournalId(join(dir, 'empty.db'))).toBeUndefined();
    writeFileSync(join(dir, 'text.db'), 'not a database at all, but long enough to be read as a header of one'.repeat(4));
    expect(readJournalId(join(dir, 'text.db'))).toBeUndefined();
  });

  it('refuses a link, even to a journal, and a named pipe, at once', () => {
    const dir = folder();
    const file = join(dir, 'journal.db');
    createSqliteJournal(file, { onUnresolved: () => undefined }).close();
    symlinkSync(file, join(dir, 'linked.db'));
    expect(() => readJournalId(join(dir, 'linked.db'))).toThrow('must be a regular file, not a link');
    execFileSync('mkfifo', [join(dir, 'pipe.db')]);
    expect(() => readJournalId(join(dir, 'pipe.db'))).toThrow('must be a regular file, not a link');
  });
});
