// `toolgate audit verify` against the anchored head, through the built binary, after the journal is tampered with by `sqlite3`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendOnlyTriggerSql, CHAINED_TABLES } from '../src/journal/sqlite/schema.js';
import { runCli } from './support/spawn-cli.js';

function workspace(config: object = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-anchor-'));
  writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'notes.md'), 'hello\n');
  return dir;
}

const journalOf = (dir: string) => join(dir, '.toolgate', 'journal.db');
const anchorOf = (dir: string) => join(dir, '.toolgate', 'journal.anchor');

/** `calls` journaled calls through `toolgate call`, each its own gateway process. */
async function journaled(dir: string, calls: number): Promise<void> {
  for (let index = 0; index < calls; index += 1) expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], dir)).code).toBe(0);
}

/** The attacker with `sqlite3`: drop the append-only triggers, tamper, recreate them exactly as the journal does. */
function tamper(dir: string, sql: string): void {
  const drop = CHAINED_TABLES.map((table) => `DROP TRIGGER ${table}_no_update; DROP TRIGGER ${table}_no_delete;`).join(' ');
  const recreate = CHAINED_TABLES.flatMap(appendOnlyTriggerSql).map((statement) => `${statement};`).join(' ');
  execFileSync('sqlite3', [journalOf(dir), `${drop} ${sql} ${recreate}`]);
}

function query(dir: string, sql: string): string {
  return execFileSync('sqlite3', [journalOf(dir), sql], { encoding: 'utf8' }).trim();
}

const rows = (dir: string) => Number(query(dir, 'SELECT max(seq) FROM (SELECT seq FROM receipts UNION ALL SELECT seq FROM events UNION ALL SELECT seq FROM claims UNION ALL SELECT seq FROM checkpoints)'));

async function verify(dir: string, ...flags: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli(['audit', 'verify', ...flags], dir);
}

// Each gateway process costs seconds on a loaded machine: the journals are made once, and each test tampers with its own copy.
const bases: { plain: string; other: string; signed: string } = { plain: '', other: '', signed: '' };
beforeAll(async () => {
  bases.plain = workspace();
  bases.other = workspace();
  bases.signed = workspace({ journal: { sign: true } });
  await Promise.all([journaled(bases.plain, 3), journaled(bases.other, 4), journaled(bases.signed, 2)]);
}, 180_000);

/** A copy of a journaled workspace, journal and anchor included. */
function copyOf(base: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-anchor-'));
  cpSync(base, dir, { recursive: true });
  return dir;
}

describe('toolgate audit verify with the anchor every gateway process keeps', () => {
  it('passes an untouched journal, naming the anchor; writes .toolgate/journal.anchor mode 0600', async () => {
    const dir = bases.plain;
    const anchor = JSON.parse(readFileSync(anchorOf(dir), 'utf8')) as { rows: number; head: string };
    expect(anchor.rows).toBe(rows(dir));
    expect(execFileSync('stat', ['-c', '%a', anchorOf(dir)], { encoding: 'utf8' }).trim()).toBe('600');
    const result = await verify(dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`the journal matches its anchor (${anchor.rows} rows`);
    const json = JSON.parse((await runCli(['--json', 'audit', 'verify'], dir)).stdout) as { ok: boolean; anchor: { case: string; file: string } };
    expect(json).toMatchObject({ ok: true, anchor: { case: 'matches', file: anchorOf(dir) } });
  }, 90_000);

  it('a cut tail: the newest receipt and events deleted and the triggers recreated', async () => {
    const dir = copyOf(bases.plain);
    const before = rows(dir);
    tamper(dir, 'DELETE FROM events WHERE seq > (SELECT max(seq) FROM receipts) - 1; DELETE FROM receipts WHERE seq = (SELECT max(seq) FROM receipts);');
    const after = rows(dir);
    expect(after).toBeLessThan(before);
    // The shorter chain is whole on its own, but it no longer holds the row this user's toolgate saw it end on (kept in
    // the user's home), and the anchor shows the cut by its counts.
    const unanchored = await verify(dir, '--no-anchor');
    expect(unanchored.code).toBe(1);
    expect(unanchored.stdout).toContain("is not as this user's toolgate left it: it no longer holds row #");
    const result = await verify(dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`journal does not match its anchor: cut tail: the journal has ${after} rows, the anchor recorded ${before}`);
  }, 90_000);

  it('a row deleted from the middle: the chain break, by its row', async () => {
    const dir = copyOf(bases.plain);
    const middle = Number(query(dir, 'SELECT seq FROM receipts ORDER BY seq LIMIT 1 OFFSET 1'));
    tamper(dir, `DELETE FROM receipts WHERE seq = ${middle};`);
    const result = await verify(dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`chain broken at `);
    expect(result.stdout).toContain(`rows ${middle}–${middle} are missing (deleted)`);
    expect(result.stdout).toContain('not compared: the chain breaks before row');
  }, 90_000);

  it('a swapped file: another journal copied over it', async () => {
    const dir = copyOf(bases.plain);
    const other = bases.other;
    for (const suffix of ['-wal', '-shm']) rmSync(`${journalOf(dir)}${suffix}`, { force: true });
    copyFileSync(journalOf(other), journalOf(dir));
    // A whole chain, and longer than the anchor: only the file's id gives it away.
    expect((await verify(dir, '--no-anchor')).code).toBe(0);
    const result = await verify(dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('journal does not match its anchor: the journal file was replaced');
  }, 90_000);

  it('a recreated file: deleted, then a fresh gateway run, which leaves the anchor as evidence and says so', async () => {
    const dir = copyOf(bases.plain);
    const kept = readFileSync(anchorOf(dir), 'utf8');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${journalOf(dir)}${suffix}`, { force: true });
    const fresh = await runCli(['call', 'read_file', '{"path":"notes.md"}'], dir);
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toContain('the journal no longer matches its anchor');
    expect(readFileSync(anchorOf(dir), 'utf8')).toBe(kept);
    const result = await verify(dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('journal does not match its anchor: the journal file was replaced');
  }, 90_000);

  it('--anchor FILE checks a copy kept elsewhere: rows beyond it warn (fail with --strict), and it catches a cut tail whose local anchor was rewritten to match', async () => {
    const dir = copyOf(bases.plain);
    const copy = join(mkdtempSync(join(tmpdir(), 'toolgate-offsite-')), 'journal.anchor');
    copyFileSync(anchorOf(dir), copy);
    const anchored = rows(dir);
    await journaled(dir, 1);
    const beyond = await verify(dir, '--anchor', copy);
    expect(beyond.code).toBe(0);
    expect(beyond.stdout).toContain(`warning: anchor ${copy}: ${rows(dir) - anchored} rows beyond the anchor (written after it, or the anchor is stale)`);
    expect((await verify(dir, '--anchor', copy, '--strict')).code).toBe(1);

    // An attacker who controls the machine cuts the tail back before the copy and rewrites the local anchor to agree.
    tamper(dir, `DELETE FROM receipts WHERE seq >= ${anchored}; DELETE FROM events WHERE seq >= ${anchored};`);
    const local = JSON.parse(readFileSync(anchorOf(dir), 'utf8')) as Record<string, unknown>;
    const head = query(dir, 'SELECT seq || \' \' || hash FROM receipts ORDER BY seq DESC LIMIT 1').split(' ');
    writeFileSync(anchorOf(dir), JSON.stringify({ ...local, rows: Number(head[0]), head: head[1], at: Date.now() }));
    // The row this user's toolgate saw the journal end on, kept in the user's home, is gone: that catches it too. Such an
    // attacker can also adopt the cut journal as the user's: then only the copy kept elsewhere does.
    expect((await verify(dir)).code).toBe(1);
    const { id } = JSON.parse((await runCli(['--json', 'audit', 'trust-journal'], dir)).stdout) as { id: string };
    expect((await runCli(['audit', 'trust-journal', '--yes', '--id', id], dir)).code).toBe(0);
    expect((await verify(dir)).code).toBe(0);
    const caught = await verify(dir, '--anchor', copy);
    expect(caught.code).toBe(1);
    expect(caught.stdout).toContain(`cut tail: the journal has ${head[0]} rows, the anchor recorded ${anchored}`);
    expect((await verify(dir, '--anchor', join(dir, 'no-such.anchor'))).code).toBe(2);
  }, 90_000);

  it('with signing on, the anchor is signed: one rewritten without the key fails', async () => {
    const dir = copyOf(bases.signed);
    expect((await verify(dir)).code).toBe(0);
    const anchor = JSON.parse(readFileSync(anchorOf(dir), 'utf8')) as Record<string, unknown>;
    expect(anchor.signature).toEqual(expect.any(String));
    writeFileSync(anchorOf(dir), JSON.stringify({ ...anchor, rows: Number(anchor.rows) - 1 }));
    const forged = await verify(dir);
    expect(forged.code).toBe(1);
    expect(forged.stdout).toContain("the anchor's signature does not verify with the journal key");
    const { signature: _signature, keyId: _keyId, ...unsigned } = anchor;
    writeFileSync(anchorOf(dir), JSON.stringify(unsigned));
    expect((await verify(dir)).stdout).toContain('the anchor is not signed, but the journal is');
    // Gone altogether: a warning, and a failure under --strict.
    rmSync(anchorOf(dir));
    const missing = await verify(dir);
    expect(missing.code).toBe(0);
    expect(missing.stdout).toContain('warning: no anchor at');
    expect((await verify(dir, '--strict')).code).toBe(1);
  }, 90_000);
});
