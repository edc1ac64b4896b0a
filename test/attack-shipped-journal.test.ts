// A workspace that arrives with a journal its author wrote: an archive unpacked, a folder copied from another
// machine. No git tracks it, so the tracked-state checks do not see it. The journal is the user's history of every
// call, and the claims in it hold actions back: the author's rows must not pass for the user's own, nor the gateway
// write on after them. Each case here was one the gateway took as the user's journal.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteJournal } from '../src/journal/sqlite/index.js';
import { useAttackHomes } from './support/attack-workspace.js';
import { authorsWorkspace, CHANGE, useServeAs } from './support/authors-journal.js';
import { connectClient, makeWorkspace } from './support/serve-gateway.js';
import { gatewayAuth, runCli } from './support/spawn-cli.js';

const attackHome = useAttackHomes('toolgate-shipped-journal-home');
const serve = useServeAs();

const NOT_THIS_USERS = "was not made by this user's toolgate";
const digestOf = (file: string): string => (existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'missing');
const journalFiles = (workspace: string): string[] => ['journal.db', 'journal.db-wal', 'journal.anchor'].map((name) => join(workspace, '.toolgate', name));
const stateOf = (workspace: string): string[] => journalFiles(workspace).map(digestOf);
/** Every chained row's hash, read without writing. */
function rowsOf(workspace: string): string[] {
  const db = new Database(join(workspace, '.toolgate', 'journal.db'), { readonly: true });
  try {
    return ['events', 'claims', 'receipts', 'checkpoints'].flatMap((table) => db.prepare<[], string>(`SELECT hash FROM ${table} ORDER BY seq`).pluck().all());
  } finally {
    db.close();
  }
}

/** The workspace as an archive carries it to another user: every file, the journal's included, as it was. */
function unpacked(workspace: string): string {
  const copy = `${workspace}-unpacked`;
  execFileSync('cp', ['-a', workspace, copy]);
  return copy;
}

describe('attack: a workspace arrives with the journal its author wrote, and no git to say so', () => {
  it('the gateway does not start on it, nothing reads it as the user\'s, and only the user adopts it', async () => {
    const { workspace: authors, marker } = await authorsWorkspace(serve, attackHome());
    const workspace = unpacked(authors);
    const victim = attackHome();
    const before = stateOf(workspace);
    const rows = rowsOf(workspace);

    // The gateway took the author's journal as its own: it wrote on after the author's rows, and the claim the author
    // left open refused the user's own change. Now it does not start, and the journal is as it came.
    const { cli, started } = await serve(workspace, victim);
    expect(started).toMatchObject({ ok: false, error: { kind: 'config', message: expect.stringContaining(NOT_THIS_USERS) as unknown } });
    expect(cli.stderr() + JSON.stringify(started)).toContain('toolgate audit trust-journal');
    const called = await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: victim });
    expect(called.code).toBe(2);
    expect(called.stderr).toContain(NOT_THIS_USERS);
    expect(stateOf(workspace)).toEqual(before);

    // Nor does the audit trail read the author's rows as the user's history.
    for (const command of [['audit', 'tail'], ['audit', 'unresolved'], ['audit', 'export'], ['replay', 'cli']]) {
      const read = await runCli(command, workspace, undefined, { HOME: victim });
      expect(read.code, command.join(' ')).toBe(2);
      expect(read.stderr, command.join(' ')).toContain(NOT_THIS_USERS);
    }
    // Verify walks it all the same, and fails: a whole chain proves only that its author wrote it.
    const verified = await runCli(['--json', 'audit', 'verify'], workspace, undefined, { HOME: victim });
    expect(verified.code).toBe(1);
    const report = JSON.parse(verified.stdout) as { ok: boolean; rows: number; firstBadRow?: unknown; journal: { trusted: boolean; id: string } };
    expect(report).toMatchObject({ ok: false, journal: { trusted: false, id: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown } });
    expect(report.rows).toBeGreaterThan(0);
    expect(report.firstBadRow).toBeUndefined();
    expect((await runCli(['audit', 'verify'], workspace, undefined, { HOME: victim })).stdout).toContain('toolgate audit trust-journal');
    expect(rowsOf(workspace)).toEqual(rows);

    // A person who did write it (their own journal, carried from another machine) adopts it by the id shown to them.
    const shown = await runCli(['--json', 'audit', 'trust-journal'], workspace, undefined, { HOME: victim });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ trusted: false, id: report.journal.id, receipts: expect.any(Number) as unknown, unresolved: 1 });
    expect((await runCli(['audit', 'trust-journal', '--yes', '--id', '0'.repeat(32)], workspace, undefined, { HOME: victim })).code).toBe(2);
    expect((await runCli(['audit', 'trust-journal', '--yes', '--id', report.journal.id], workspace, undefined, { HOME: victim })).code).toBe(0);
    expect((await runCli(['--json', 'audit', 'verify'], workspace, undefined, { HOME: victim })).code).toBe(0);
    // Adopted, it is the user's history: its open claim holds the change back until the user resolves it.
    const adopted = await serve(workspace, victim);
    const { client } = await connectClient(new URL(String(adopted.started?.mcp)), 'victim', undefined, gatewayAuth(adopted.started ?? {}));
    const again = await client.callTool(CHANGE);
    expect(again.isError).toBe(true);
    expect(JSON.stringify(again.content)).toContain('an earlier dispatch of the same action');
    expect(readFileSync(marker, 'utf8')).toBe('');
    await client.close();
  }, 90_000);

  it("the user's own journal, with the author's copied over it: refused, though the user's toolgate made a journal there", async () => {
    const { workspace: authors } = await authorsWorkspace(serve, attackHome());
    const victim = attackHome();
    const own = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'mine\n' });
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], own, undefined, { HOME: victim })).code).toBe(0);
    for (const name of ['journal.db-wal', 'journal.db-shm', 'journal.anchor']) rmSync(join(own, '.toolgate', name), { force: true });
    copyFileSync(join(authors, '.toolgate', 'journal.db'), join(own, '.toolgate', 'journal.db'));
    const called = await runCli(['call', 'read_file', '{"path":"notes.md"}'], own, undefined, { HOME: victim });
    expect(called.code).toBe(2);
    expect(called.stderr).toContain(NOT_THIS_USERS);
  }, 90_000);

  it('held: the user\'s journal is theirs wherever the workspace moves; one made before journals were recorded is adopted once', async () => {
    const home = attackHome();
    const own = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'mine\n' });
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], own, undefined, { HOME: home })).code).toBe(0);
    const moved = `${own}-moved`;
    renameSync(own, moved);
    const read = await runCli(['call', 'read_file', '{"path":"notes.md"}'], moved, undefined, { HOME: home });
    expect(read.code, read.stderr).toBe(0);
    expect((await runCli(['audit', 'tail'], moved, undefined, { HOME: home })).stdout.match(/read_file/g)).toHaveLength(2);

    // A journal written by the library, or by a toolgate from before this record: named, and adopted by its id.
    const older = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'older\n' });
    const library = createSqliteJournal(join(older, '.toolgate', 'journal.db'));
    await library.append({ type: 'call-refused', at: Date.now(), data: { tool: 'read_file' } });
    library.close();
    const refused = await runCli(['call', 'read_file', '{"path":"notes.md"}'], older, undefined, { HOME: home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('toolgate audit trust-journal');
    const { id } = JSON.parse((await runCli(['--json', 'audit', 'trust-journal'], older, undefined, { HOME: home })).stdout) as { id: string };
    expect((await runCli(['audit', 'trust-journal', '--yes', '--id', id], older, undefined, { HOME: home })).code).toBe(0);
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], older, undefined, { HOME: home })).code).toBe(0);
  }, 60_000);

  it('held: gateways started at once on a workspace with no journal yet each start, on the one journal one of them made', async () => {
    const home = attackHome();
    const workspace = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'notes\n' });
    const calls = await Promise.all(Array.from({ length: 4 }, () => runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: home })));
    for (const call of calls) expect(call.code, call.stderr).toBe(0);
    const verified = JSON.parse((await runCli(['--json', 'audit', 'verify'], workspace, undefined, { HOME: home })).stdout) as { ok: boolean; journal: { trusted: boolean } };
    expect(verified).toMatchObject({ ok: true, journal: { trusted: true } });
  }, 60_000);

  it('a journal that is a named pipe: refused at once, not waited on', async () => {
    const home = attackHome();
    const workspace = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'notes\n' });
    execFileSync('mkdir', ['-p', join(workspace, '.toolgate')]);
    execFileSync('mkfifo', [join(workspace, '.toolgate', 'journal.db')]);
    const started = Date.now();
    const called = await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: home });
    expect(called.code).toBe(2);
    expect(called.stderr).toContain('journal.db');
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);
});
