// The record of the row each journal of the user's last ended on, attacked in turn. A journal recorded before its
// first row (a gateway started and stopped before any call) was vouched for by its id alone, which an anchor names:
// the author's journal given that id, or a log laid beside it, passed for the user's. A checkpoint naming the recorded
// row, which anyone who read the anchor can write, stood in for the row. A copied workspace had its two journals
// refuse each other, and sixteen copies dropped the original's place; a gateway killed after retention took its
// recorded row out, or as it made the journal, had the user's journal refused; and a journal a program held open, with
// no row yet, was moved aside from under it. Each case failed on the build before its fix.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { authorsWorkspace, changeHeldByAuthorsClaim, leaveClaimOpen, useServeAs } from './support/authors-journal.js';
import { craftWal, flatCopyOf, metaPages, withoutState } from './support/journal-crafting.js';
import { connectClient, makeWorkspace } from './support/serve-gateway.js';
import { gatewayAuth, runCli, startCli } from './support/spawn-cli.js';

const attackHome = useAttackHomes('toolgate-journal-record-home');
const EFFECT_SERVER = fileURLToPath(new URL('./fixtures/mcp/effect-server.mjs', import.meta.url));
const LIB = join(import.meta.dirname, '..', 'dist', 'journal', 'sqlite');
const serve = useServeAs();

function invocationsOf(journal: string): string[] {
  const db = new Database(journal, { readonly: true });
  try {
    return db.prepare<[], string>(`SELECT json_extract(body, '$.receipt.invocationId') FROM receipts`).pluck().all();
  } finally {
    db.close();
  }
}

describe('attack: a journal recorded at row 0 is vouched for by its id alone', () => {
  it("the user started the gateway once (no call yet): the author's journal, given the user's id, is refused", async () => {
    const { workspace: authors, marker } = await authorsWorkspace(serve, attackHome());
    // The user's own project; the user's editor started the gateway on it, and stopped it, before any call.
    const victim = attackHome();
    const mine = withoutState(authors);
    const first = await serve(mine, victim);
    expect(first.started?.ok).not.toBe(false);
    await first.cli.stop();
    // The id is no secret (docs/journal.md): the anchor names it.
    const leakedId = (JSON.parse(readFileSync(join(mine, '.toolgate', 'journal.anchor'), 'utf8')) as { journal: string }).journal;

    // The author gives the author's own journal (a receipt, and the claim left open) that id, and ships it with a matching anchor.
    const shipped = join(authors, '.toolgate');
    const forged = join(shipped, 'forged.db');
    const db0 = new Database(join(shipped, 'journal.db'));
    db0.pragma('wal_checkpoint(TRUNCATE)');
    db0.close();
    copyFileSync(join(shipped, 'journal.db'), forged);
    const db = new Database(forged);
    db.pragma('journal_mode = WAL');
    db.prepare(`UPDATE meta SET value = ? WHERE name = 'journal_id'`).run(leakedId);
    const head = ['events', 'claims', 'receipts', 'checkpoints']
      .flatMap((table) => db.prepare<[], { seq: number; hash: string }>(`SELECT seq, hash FROM ${table}`).all())
      .sort((a, b) => b.seq - a.seq)[0];
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const author = invocationsOf(forged);
    expect(author.length).toBeGreaterThan(0);
    // The archive is unpacked over the user's workspace: journal.db and journal.anchor replaced.
    for (const name of ['journal.db-wal', 'journal.db-shm']) rmSync(join(mine, '.toolgate', name), { force: true });
    copyFileSync(forged, join(mine, '.toolgate', 'journal.db'));
    const anchor = JSON.parse(readFileSync(join(mine, '.toolgate', 'journal.anchor'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(mine, '.toolgate', 'journal.anchor'), JSON.stringify({ ...anchor, rows: head?.seq, head: head?.hash }, null, 2));

    const verified = await runCli(['--json', 'audit', 'verify'], mine, undefined, { HOME: victim });
    const report = JSON.parse(verified.stdout) as { ok: boolean; journal: { trusted: boolean } };
    const tail = await runCli(['--json', 'audit', 'tail', '-n', '100'], mine, undefined, { HOME: victim });
    const served = await serve(mine, victim);
    const heldByAuthorsClaim = await changeHeldByAuthorsClaim(served.started);
    expect({
      verifyOk: report.ok,
      trusted: report.journal.trusted,
      tailCode: tail.code,
      authorsRowsInTail: author.filter((id) => tail.stdout.includes(id)).length,
      gatewayStarted: served.started?.ok !== false,
      usersChangeHeldByAuthorsClaim: heldByAuthorsClaim,
      changeRan: existsSync(marker) ? readFileSync(marker, 'utf8') : '',
    }).toEqual({ verifyOk: false, trusted: false, tailCode: 2, authorsRowsInTail: 0, gatewayStarted: false, usersChangeHeldByAuthorsClaim: false, changeRan: '' });
  }, 120_000);
});

describe('attack: a copied workspace', () => {
  it("the user copies a project (cp -a) and works in both: each copy's journal stays the user's", async () => {
    const home = attackHome();
    const original = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'mine\n' });
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], original, undefined, { HOME: home })).code).toBe(0);
    // The user tries something in a copy of the project, as one does.
    const copy = `${original}-experiment`;
    execFileSync('cp', ['-a', original, copy]);
    const inCopy = await runCli(['call', 'read_file', '{"path":"notes.md"}'], copy, undefined, { HOME: home });
    expect(inCopy.code, inCopy.stderr).toBe(0);
    // Back in the original: the user's own journal, as the user's own toolgate left it, untouched since.
    const back = await runCli(['call', 'read_file', '{"path":"notes.md"}'], original, undefined, { HOME: home });
    const tail = await runCli(['audit', 'tail'], original, undefined, { HOME: home });
    expect({ code: back.code, stderr: back.stderr.split('\n')[0], tailCode: tail.code }).toEqual({ code: 0, stderr: '', tailCode: 0 });
  }, 60_000);
});

const CLOCK = fileURLToPath(new URL('./__fixtures__/clock-ahead.cjs', import.meta.url));

describe('attack: retention compacts the recorded row, then the gateway dies', () => {
  it("a long-running gateway with journal.retentionDays is killed (OOM, power cut) after retention took its recorded row out: the user's journal is still the user's", async () => {
    const home = attackHome();
    const workspace = makeWorkspace({ mode: 'auto', journal: { retentionDays: 1 } }, { 'notes.md': 'mine\n' });
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: home })).code).toBe(0);
    const clockFile = join(mkdtempSync(join(tmpdir(), 'toolgate-journal-record-clock-')), 'offset');
    writeFileSync(clockFile, '0');
    // The gateway runs; its clock (simulated) runs two days on while it answers calls.
    const cli = startCli(['--json', 'serve', '--http', '0'], workspace, { HOME: home, NODE_OPTIONS: `--require ${CLOCK}`, TG_CLOCK_FILE: clockFile });
    const started = await cli.ready;
    const { client } = await connectClient(new URL(started.mcp as string), 'user', undefined, gatewayAuth(started));
    for (let index = 0; index < 3; index += 1) await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } });
    writeFileSync(clockFile, String(2 * 86_400_000));
    // Retention (hourly) compacts the journal's prefix older than a day: the row recorded at the gateway's open with it.
    const journal = join(workspace, '.toolgate', 'journal.db');
    const checkpoints = (): number => {
      const db = new Database(journal, { readonly: true });
      try {
        return db.prepare<[], number>('SELECT count(*) FROM checkpoints').pluck().get() ?? 0;
      } finally {
        db.close();
      }
    };
    await expect.poll(checkpoints, { timeout: 20_000 }).toBeGreaterThan(0);
    await client.close();
    // The machine loses power, or the OOM killer takes the gateway: it never closes the journal.
    cli.child.kill('SIGKILL');
    await new Promise((resolve) => cli.child.once('exit', resolve));
    const verified = await runCli(['--json', 'audit', 'verify'], workspace, undefined, { HOME: home });
    const again = await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: home });
    const report = JSON.parse(verified.stdout) as { ok: boolean; firstBadRow?: unknown; journal: { trusted: boolean } };
    // The chain itself is whole (no bad row): only the record's row is gone, compacted behind the checkpoint.
    expect(report.firstBadRow).toBeUndefined();
    expect({ verifyOk: report.ok, trusted: report.journal.trusted, code: again.code, stderr: again.stderr.split('\n')[0] }).toEqual({ verifyOk: true, trusted: true, code: 0, stderr: '' });
  }, 90_000);
});

describe('attack: the set-aside path and a live journal', () => {
  it("a program of the user's, on the library, has the workspace's journal open (made, no row yet): toolgate call leaves it where it is", async () => {
    const home = attackHome();
    const workspace = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'mine\n' });
    const journal = join(workspace, '.toolgate', 'journal.db');
    const lib = join(import.meta.dirname, '..', 'dist', 'journal', 'sqlite', 'index.js');
    // The user's agent, on the library, opens the workspace's journal (the default path), then records a claim a
    // moment later, when its first effect starts.
    const script = `
      const { createSqliteJournal } = await import(${JSON.stringify(lib)});
      const journal = createSqliteJournal(${JSON.stringify(journal)});
      process.stdout.write('open\\n');
      await new Promise((resolve) => process.stdin.once('data', resolve));
      await journal.append({ type: 'agent-effect-started', at: Date.now(), data: { change: 'deploy' } });
      journal.close();
      process.stdout.write('done\\n');`;
    const agent = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: workspace, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    agent.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    await expect.poll(() => out, { timeout: 20_000 }).toContain('open');
    // Meanwhile the user runs a governed call in the same workspace.
    const called = await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: home });
    agent.stdin.write('go\n');
    await expect.poll(() => out, { timeout: 20_000 }).toContain('done');
    const movedAside = existsSync(`${journal}-held-by-toolgate`);
    // Where did the agent's row go? Not into the journal at journal.db.
    const db = new Database(journal, { readonly: true });
    const types = db.prepare<[], string>('SELECT type FROM events').pluck().all();
    db.close();
    expect({ callCode: called.code, movedAside, agentRowInJournal: types.includes('agent-effect-started') }).toEqual({ callCode: expect.any(Number) as unknown, movedAside: false, agentRowInJournal: true });
  }, 60_000);
});

describe('attack: a journal recorded at row 0, and a log laid beside it', () => {
  it("a journal.db-wal of every page of the author's journal but the id's, over a journal the user's gateway made and stopped before any call: refused", async () => {
    const { workspace: authors, marker } = await authorsWorkspace(serve, attackHome());
    const flat = flatCopyOf(join(authors, '.toolgate', 'journal.db'));
    const wal = craftWal(flat, metaPages(flat));
    const flatFile = join(mkdtempSync(join(tmpdir(), 'toolgate-journal-record-flat-')), 'j.db');
    writeFileSync(flatFile, flat);
    const author = invocationsOf(flatFile);
    expect(author.length).toBeGreaterThan(0);
    const victim = attackHome();
    const mine = withoutState(authors);
    const first = await serve(mine, victim);
    expect(first.started?.ok).not.toBe(false);
    await first.cli.stop();
    writeFileSync(join(mine, '.toolgate', 'journal.db-wal'), wal);
    const tail = await runCli(['--json', 'audit', 'tail', '-n', '100'], mine, undefined, { HOME: victim });
    const served = await serve(mine, victim);
    const heldByAuthorsClaim = await changeHeldByAuthorsClaim(served.started);
    expect({ tailCode: tail.code, authorsRowsInTail: author.filter((id) => tail.stdout.includes(id)).length, gatewayStarted: served.started?.ok !== false, usersChangeHeldByAuthorsClaim: heldByAuthorsClaim, changeRan: readFileSync(marker, 'utf8') }).toEqual({
      tailCode: 2,
      authorsRowsInTail: 0,
      gatewayStarted: false,
      usersChangeHeldByAuthorsClaim: false,
      changeRan: '',
    });
  }, 120_000);
});

describe('attack: a checkpoint naming the recorded row stands in for the row', () => {
  it("the author, knowing the user's anchor (id, rows, head), ships a journal that starts from a checkpoint through that head: refused", async () => {
    const { createSqliteJournal } = (await import(join(LIB, 'index.js'))) as typeof import('../src/journal/sqlite/index.js');
    const { hashRow } = (await import(join(LIB, 'row-hash.js'))) as typeof import('../src/journal/sqlite/row-hash.js');

    // The user's project, worked in by the user's own toolgate.
    const victim = attackHome();
    const marker = join(mkdtempSync(join(tmpdir(), 'toolgate-journal-record-effect-')), 'marker.txt');
    const held = `${marker}.hold`;
    writeFileSync(held, '');
    const config = { mode: 'auto', servers: { fx: { command: process.execPath, args: [EFFECT_SERVER, marker, held] } }, policy: { rules: [{ tool: 'mcp_fx_apply_change', decision: 'allow' }] } };
    const mine = makeWorkspace(config, { 'notes.md': 'notes\n' });
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], mine, undefined, { HOME: victim })).code).toBe(0);
    // What leaks: the anchor, { journal, rows, head } (docs/journal.md: the id is no secret, the anchor names it).
    const anchorFile = join(mine, '.toolgate', 'journal.anchor');
    const leaked = JSON.parse(readFileSync(anchorFile, 'utf8')) as { journal: string; rows: number; head: string };

    // The author makes a journal of that id holding a checkpoint "through" the user's head, and nothing of the user's.
    const authors = makeWorkspace(config, { 'notes.md': 'notes\n' });
    const forged = join(authors, '.toolgate', 'journal.db');
    createSqliteJournal(forged, { journalId: leaked.journal, onUnresolved: () => undefined }).close();
    const db = new Database(forged);
    const at = Date.now();
    const fields = { at, through_seq: leaked.rows, through_hash: leaked.head, body: '{"removed":{}}', key_id: null };
    const seq = leaked.rows + 1;
    db.prepare(`INSERT INTO checkpoints (seq, at, through_seq, through_hash, body, key_id, prev_hash, hash) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`).run(seq, at, leaked.rows, leaked.head, fields.body, leaked.head, hashRow(leaked.head, 'checkpoints', seq, fields));
    db.close();
    // The author adopts it under the author's own home and works on it: a receipt, and a change killed mid-way (claim open).
    const author = attackHome();
    expect((await runCli(['audit', 'trust-journal', '--yes', '--id', leaked.journal], authors, undefined, { HOME: author })).code).toBe(0);
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], authors, undefined, { HOME: author })).code).toBe(0);
    await leaveClaimOpen(serve, authors, author, marker, held);

    // The archive, unpacked over the user's workspace: journal.db (all pages in the file) and journal.anchor.
    const shipped = join(mkdtempSync(join(tmpdir(), 'toolgate-journal-record-ship-')), 'journal.db');
    writeFileSync(shipped, flatCopyOf(forged));
    const authorsRows = invocationsOf(shipped);
    expect(authorsRows.length).toBeGreaterThan(0);
    copyFileSync(shipped, join(mine, '.toolgate', 'journal.db'));
    const sdb = new Database(shipped, { readonly: true });
    const head = ['events', 'claims', 'receipts', 'checkpoints'].flatMap((table) => sdb.prepare<[], { seq: number; hash: string }>(`SELECT seq, hash FROM ${table}`).all()).sort((a, b) => b.seq - a.seq)[0];
    sdb.close();
    writeFileSync(anchorFile, JSON.stringify({ ...(JSON.parse(readFileSync(anchorFile, 'utf8')) as object), rows: head?.seq, head: head?.hash }, null, 2));

    const tail = await runCli(['--json', 'audit', 'tail', '-n', '100'], mine, undefined, { HOME: victim });
    const served = await serve(mine, victim);
    const heldByAuthorsClaim = await changeHeldByAuthorsClaim(served.started);
    expect({
      tailCode: tail.code,
      authorsRowsInTail: authorsRows.filter((id) => tail.stdout.includes(id)).length,
      gatewayStarted: served.started?.ok !== false,
      usersChangeHeldByAuthorsClaim: heldByAuthorsClaim,
    }).toEqual({ tailCode: 2, authorsRowsInTail: 0, gatewayStarted: false, usersChangeHeldByAuthorsClaim: false });
  }, 180_000);
});

const CRASH = fileURLToPath(new URL('./__fixtures__/crash-at.cjs', import.meta.url));

/** The first governed call in a fresh workspace, killed at `where` (see the fixture); then the user runs it again. */
async function crashedThenAgain(where: string): Promise<{ crashed: number | null; files: string[]; code: number | null; stderr: string }> {
  const home = attackHome();
  const workspace = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'mine\n' });
  // The first governed call in a fresh workspace; the process is killed at `where`.
  const crashed = await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: home, NODE_OPTIONS: `--require ${CRASH}`, TG_CRASH_AT: where });
  const dir = join(workspace, '.toolgate');
  const files = ['journal.db', 'journal.db-wal', 'journal.db-shm'].filter((name) => existsSync(join(dir, name)));
  // The user runs the call again.
  const again = await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: home });
  return { crashed: crashed.code, files, code: again.code, stderr: again.stderr.split('\n')[0] ?? '' };
}

describe('attack: a crash while the CLI makes the journal', () => {
  it("killed as the schema and the id are written: the user's next call runs", async () => {
    const outcome = await crashedThenAgain('id-write');
    expect(outcome.files).toContain('journal.db');
    expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it("killed after the journal-made row committed, before the record learned it: the user's next call runs", async () => {
    const outcome = await crashedThenAgain('first-row');
    expect(outcome.files).toContain('journal.db');
    expect({ code: outcome.code, stderr: outcome.stderr }).toEqual({ code: 0, stderr: '' });
  }, 60_000);
});

describe('attack: more copies of a workspace than a journal kept places for', () => {
  it("the user makes 16 copies, works once in each, and returns to the untouched original: it is still the user's (before, 16 places were kept)", async () => {
    const home = attackHome();
    const original = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'mine\n' });
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], original, undefined, { HOME: home })).code).toBe(0);
    for (let index = 0; index < 16; index += 1) {
      const copy = `${original}-task${String(index)}`;
      execFileSync('cp', ['-a', original, copy]);
      const inCopy = await runCli(['call', 'read_file', '{"path":"notes.md"}'], copy, undefined, { HOME: home });
      expect(inCopy.code, inCopy.stderr).toBe(0);
    }
    // The original, exactly as the user's own toolgate left it.
    const back = await runCli(['call', 'read_file', '{"path":"notes.md"}'], original, undefined, { HOME: home });
    expect({ code: back.code, stderr: back.stderr.split('\n')[0] }).toEqual({ code: 0, stderr: '' });
  }, 180_000);
});
