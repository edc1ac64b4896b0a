import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteJournal } from '../../journal/sqlite/create-sqlite-journal.js';
import { loadConfig } from '../config/load-config.js';
import { journalRecord, openVouchedJournal, refuseUnvouchedJournal } from './vouch-journal.js';

function setup() {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-vouch-journal-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), '{}');
  return { config: loadConfig(workspace), home: mkdtempSync(join(tmpdir(), 'toolgate-vouch-journal-home-')) };
}

const opener = (path: string) => () => createSqliteJournal(path, { onUnresolved: () => undefined });
const notThisUsers = expect.objectContaining({ kind: 'config', message: expect.stringContaining("was not made by this user's toolgate") as unknown });

/** A journal some other toolgate made, at `path`. */
function othersJournal(path: string): string {
  const journal = createSqliteJournal(path, { onUnresolved: () => undefined });
  const id = journal.journalId ?? '';
  journal.close();
  return id;
}

describe('openVouchedJournal', () => {
  it('makes and records a journal where there is none, opens it again as this user\'s, and not under another home', () => {
    const { config, home } = setup();
    const made = openVouchedJournal(config, opener(config.journal.path), home);
    const id = made.journalId;
    made.close();
    expect(journalRecord(config, home).vouches(config.journal.path, id ?? '')).toBe(true);
    const again = openVouchedJournal(config, opener(config.journal.path), home);
    expect(again.journalId).toBe(id);
    again.close();
    expect(refuseUnvouchedJournal(config, home)).toBe(id);
    expect(() => openVouchedJournal(config, opener(config.journal.path), setup().home)).toThrow(notThisUsers);
  });

  it('refuses a journal already there that this user\'s toolgate did not make, before anything opens it, until the user adopts it', () => {
    const { config, home } = setup();
    const id = othersJournal(config.journal.path);
    const bytes = readFileSync(config.journal.path);
    let opened = false;
    expect(() => openVouchedJournal(config, () => ((opened = true), opener(config.journal.path)()), home)).toThrow(notThisUsers);
    expect(() => refuseUnvouchedJournal(config, home)).toThrow(expect.objectContaining({ message: expect.stringContaining(`journal ${id}`) as unknown }));
    expect(opened).toBe(false);
    expect(readFileSync(config.journal.path).equals(bytes)).toBe(true);
    journalRecord(config, home).remember(config.journal.path, id);
    const adopted = openVouchedJournal(config, opener(config.journal.path), home);
    expect(adopted.journalId).toBe(id);
    adopted.close();
  });

  it('refuses, and closes, a journal swapped for another between the check and the open', () => {
    const { config, home } = setup();
    openVouchedJournal(config, opener(config.journal.path), home).close();
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'toolgate-vouch-journal-other-')), 'journal.db');
    othersJournal(elsewhere);
    let swapped: ReturnType<ReturnType<typeof opener>> | undefined;
    const swapThenOpen = () => {
      copyFileSync(elsewhere, config.journal.path);
      swapped = opener(config.journal.path)();
      return swapped;
    };
    expect(() => openVouchedJournal(config, swapThenOpen, home)).toThrow(expect.objectContaining({ kind: 'config', message: expect.stringContaining('changed while it was opened') as unknown }));
    // Closed: it can be removed and made again at once, by this user's toolgate.
    expect(swapped).toBeDefined();
    rmSync(config.journal.path);
    openVouchedJournal(config, opener(config.journal.path), home).close();
  });

  it('vouches for a journal another process holds open, its id still in the write-ahead log', () => {
    const { config, home } = setup();
    const running = openVouchedJournal(config, opener(config.journal.path), home);
    try {
      expect(refuseUnvouchedJournal(config, home)).toBe(running.journalId);
    } finally {
      running.close();
    }
  });

  it('refuses a journal that is a link as a configuration error, naming it', () => {
    const { config, home } = setup();
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'toolgate-vouch-journal-link-')), 'journal.db');
    othersJournal(elsewhere);
    mkdirSync(join(config.workspace, '.toolgate'), { recursive: true });
    symlinkSync(elsewhere, config.journal.path);
    expect(() => openVouchedJournal(config, opener(config.journal.path), home)).toThrow(expect.objectContaining({ kind: 'config', message: `${config.journal.path} must be a regular file, not a link.` }));
  });
});
