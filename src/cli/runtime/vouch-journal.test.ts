import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteJournal } from '../../journal/sqlite/create-sqlite-journal.js';
import { loadConfig } from '../config/load-config.js';
import { journalRecord } from './journal-record.js';
import { journalTrust, openVouchedJournal, refuseUnvouchedJournal } from './vouch-journal.js';

function setup() {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-vouch-journal-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), '{}');
  return { config: loadConfig(workspace), home: mkdtempSync(join(tmpdir(), 'toolgate-vouch-journal-home-')) };
}

const quiet = { onUnresolved: () => undefined };
const notThisUsers = expect.objectContaining({ kind: 'config', message: expect.stringContaining("was not made by this user's toolgate") as unknown });
const notAsLeft = expect.objectContaining({ kind: 'config', message: expect.stringContaining("is not as this user's toolgate left it") as unknown });

/** A journal some other toolgate made at `path`, holding `rows` refused calls of `tool`. */
async function othersJournal(path: string, rows = 2, tool = 'author_tool'): Promise<string> {
  mkdirSync(join(path, '..'), { recursive: true });
  const journal = createSqliteJournal(path, quiet);
  for (let row = 0; row < rows; row += 1) await journal.append({ type: 'call-refused', at: Date.now(), data: { tool } });
  const id = journal.journalId ?? '';
  journal.close();
  return id;
}

/** This user's journal at the configuration's path, holding `rows` refused calls, as the CLI leaves it. */
async function ownJournal(config: ReturnType<typeof loadConfig>, home: string, rows = 2): Promise<string> {
  const journal = openVouchedJournal(config, quiet, home);
  for (let row = 0; row < rows; row += 1) await journal.append({ type: 'call-refused', at: Date.now(), data: { tool: 'own_tool' } });
  const id = journal.journalId ?? '';
  journal.close();
  return id;
}

describe('openVouchedJournal', () => {
  it('makes and records a journal where there is none, opens it again as this user\'s, and not under another home', async () => {
    const { config, home } = setup();
    const id = await ownJournal(config, home);
    // Recorded at the close as it ended: its last row.
    expect(journalRecord(config, home).headsOf(id)[0]?.seq).toBe(3);
    const again = openVouchedJournal(config, quiet, home);
    expect(again.journalId).toBe(id);
    again.close();
    expect(refuseUnvouchedJournal(config, home)).toBe(id);
    expect(() => openVouchedJournal(config, quiet, setup().home)).toThrow(notThisUsers);
  });

  it('refuses a journal already there that this user\'s toolgate did not make, before anything opens it to write', async () => {
    const { config, home } = setup();
    const id = await othersJournal(config.journal.path);
    const bytes = readFileSync(config.journal.path);
    expect(() => openVouchedJournal(config, quiet, home)).toThrow(notThisUsers);
    expect(() => refuseUnvouchedJournal(config, home)).toThrow(expect.objectContaining({ message: expect.stringContaining(`journal ${id}`) as unknown }));
    expect(journalTrust(config, home)).toMatchObject({ trusted: false, why: expect.stringContaining(id) as unknown });
    expect(readFileSync(config.journal.path).equals(bytes)).toBe(true);
  });

  it('refuses another journal given this user\'s id: the id is no secret, the row the journal ended on is', async () => {
    const { config, home } = setup();
    const id = await ownJournal(config, home);
    const forged = join(mkdtempSync(join(tmpdir(), 'toolgate-vouch-journal-forged-')), 'journal.db');
    await othersJournal(forged, 4);
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(forged);
    db.prepare(`UPDATE meta SET value = ? WHERE name = 'journal_id'`).run(id);
    db.close();
    copyFileSync(forged, config.journal.path);
    expect(() => openVouchedJournal(config, quiet, home)).toThrow(notAsLeft);
  });

  it('makes a journal anew where one holds no row and no id it knows, moving it and what lies beside it aside', async () => {
    const { config, home } = setup();
    mkdirSync(join(config.journal.path, '..'), { recursive: true });
    // An empty file, as a toolgate stopped as it made the journal leaves it, and an anchor of another journal.
    writeFileSync(config.journal.path, '');
    writeFileSync(`${config.journal.path.replace(/\.db$/, '')}.anchor`, '{"journal":"0"}');
    const id = await ownJournal(config, home);
    expect(existsSync(`${config.journal.path}-held-by-toolgate`)).toBe(true);
    expect(refuseUnvouchedJournal(config, home)).toBe(id);
  });

  it('makes anew a journal this toolgate was stopped making, whatever lies beside it: a rollback journal left as it turned to WAL', async () => {
    const { config, home } = setup();
    await othersJournal(config.journal.path, 0);
    writeFileSync(`${config.journal.path}-journal`, 'the rollback journal of the turn to WAL');
    journalRecord(config, home).remember(config.journal.path, 'f'.repeat(32), { seq: 0, hash: '0'.repeat(64) });
    const id = await ownJournal(config, home);
    expect(id).not.toBe('f'.repeat(32));
    expect(existsSync(`${config.journal.path}-journal-held-by-toolgate`)).toBe(true);
    expect(journalRecord(config, home).headsOf(id)[0]?.seq).toBeGreaterThan(0);
    // Elsewhere, the same files are another's: refused, naming the rollback journal.
    const other = setup();
    await othersJournal(other.config.journal.path, 0);
    writeFileSync(`${other.config.journal.path}-journal`, 'pages of another file');
    expect(() => openVouchedJournal(other.config, quiet, other.home)).toThrow(expect.objectContaining({ message: expect.stringContaining('journal.db-journal is there') as unknown }));
  });

  it('refuses a journal that is a link as a configuration error, naming it', async () => {
    const { config, home } = setup();
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'toolgate-vouch-journal-link-')), 'journal.db');
    await othersJournal(elsewhere);
    mkdirSync(join(config.workspace, '.toolgate'), { recursive: true });
    symlinkSync(elsewhere, config.journal.path);
    expect(() => openVouchedJournal(config, quiet, home)).toThrow(expect.objectContaining({ kind: 'config', message: expect.stringContaining('journal.db must not be a symbolic link') as unknown }));
  });
});
