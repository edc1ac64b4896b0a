import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createSqliteJournal, journalFilesProblem } from './create-sqlite-journal.js';

const folder = (): string => mkdtempSync(join(tmpdir(), 'toolgate-journal-file-'));

describe('createSqliteJournal: the files it finds', () => {
  it.each(['journal.db', 'journal.db-wal', 'journal.db-shm'])('refuses %s with another hard link, and writes nothing to it', (name) => {
    const dir = folder();
    writeFileSync(join(dir, 'other-name'), '', { mode: 0o600 });
    linkSync(join(dir, 'other-name'), join(dir, name));
    expect(() => createSqliteJournal(join(dir, 'journal.db'), { onUnresolved: () => undefined })).toThrow(`${name} must not have another hard link`);
    expect(statSync(join(dir, 'other-name')).size).toBe(0);
  });

  it.each(['journal.db', 'journal.db-wal'])('refuses %s that is a named pipe, at once: SQLite would wait on it, or read it as a broken disk', (name) => {
    const dir = folder();
    execFileSync('mkfifo', [join(dir, name)]);
    expect(() => createSqliteJournal(join(dir, 'journal.db'), { onUnresolved: () => undefined })).toThrow(`${name} must be a regular file`);
  });

  it('names the files beside a journal that SQLite would read into it: a rollback journal beside pages, a log beside none', () => {
    const dir = folder();
    const file = join(dir, 'journal.db');
    createSqliteJournal(file, { onUnresolved: () => undefined }).close();
    expect(journalFilesProblem(file)).toBeUndefined();
    writeFileSync(`${file}-journal`, 'pages of another file');
    expect(journalFilesProblem(file)).toContain('journal.db-journal is there');
    const bare = join(folder(), 'journal.db');
    writeFileSync(`${bare}-wal`, 'frames of another file');
    expect(journalFilesProblem(bare)).toContain('journal.db-wal is there without the journal it was written for');
    writeFileSync(bare, '');
    expect(journalFilesProblem(bare)).toContain('journal.db-wal is there without the journal it was written for');
  });

  it('hands onClose the row the journal ends on, after its last commit; one that throws leaves the file closed all the same', async () => {
    const file = join(folder(), 'journal.db');
    const heads: unknown[] = [];
    const journal = createSqliteJournal(file, { onUnresolved: () => undefined, onClose: (head) => heads.push(head) });
    void journal.append({ type: 'note', at: 1, data: {} });
    journal.close();
    expect(heads).toEqual([{ seq: 1, hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown }]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const throwing = createSqliteJournal(file, {
      onUnresolved: () => undefined,
      onClose: () => {
        throw new Error('a caller bug');
      },
    });
    throwing.close();
    warn.mockRestore();
    // Closed: the last connection checkpointed and removed its log.
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('makes a journal others may read private before it opens it', () => {
    const dir = folder();
    writeFileSync(join(dir, 'journal.db'), '');
    chmodSync(join(dir, 'journal.db'), 0o644);
    createSqliteJournal(join(dir, 'journal.db'), { onUnresolved: () => undefined }).close();
    expect(statSync(join(dir, 'journal.db')).mode & 0o777).toBe(0o600);
  });
});
