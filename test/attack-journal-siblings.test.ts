// What SQLite reads into a journal besides the file itself, and what else passes for the user's own journal, once the
// gateway uses only a journal the user's toolgate made. An archive unpacked over the user's workspace can lay a
// write-ahead log (`journal.db-wal`) or a rollback journal (`journal.db-journal`) beside the user's own journal, and
// SQLite replays either into it, whatever file it was written for: every page but the one holding the journal's id
// became the author's. The id is no secret (an anchor names it), so a journal given it passed. An anchor left without
// its journal broke the journal the user's toolgate then made; a toolgate killed as it made the journal left the user
// one refused as another's. Each case here failed on the build before its fix.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { authorsWorkspace, changeHeldByAuthorsClaim, useServeAs } from './support/authors-journal.js';
import { authorsInvocations, craftHotJournal, craftWal, flatCopyOf, metaPages, withoutState } from './support/journal-crafting.js';
import { makeWorkspace } from './support/serve-gateway.js';
import { CLI, runCli } from './support/spawn-cli.js';

const attackHome = useAttackHomes('toolgate-journal-siblings-home');
const serve = useServeAs();






describe('attack: the journal the id vouches for is not the journal SQLite reads', () => {
  it("a journal.db-wal planted beside the user's own journal: refused, and the author's receipts and open claim are nobody's history", async () => {
    const { workspace: authors, marker } = await authorsWorkspace(serve, attackHome());
    const author = authorsInvocations(authors);
    expect(author.length).toBeGreaterThan(0);
    // The update archive the author ships carries only .toolgate/journal.db-wal, made from the author's journal with
    // the meta pages left out: nothing of the user's journal is needed, the layout is the same in every journal.
    const flat = flatCopyOf(join(authors, '.toolgate', 'journal.db'));
    const wal = craftWal(flat, metaPages(flat));

    // The user's own workspace, with the user's own journal, made by the user's toolgate (vouched).
    const victim = attackHome();
    const mine = withoutState(authors);
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], mine, undefined, { HOME: victim })).code).toBe(0);
    const ownTail = await runCli(['--json', 'audit', 'tail'], mine, undefined, { HOME: victim });
    expect(ownTail.code).toBe(0);
    for (const id of author) expect(ownTail.stdout).not.toContain(id);

    // The archive is unpacked over the workspace.
    writeFileSync(join(mine, '.toolgate', 'journal.db-wal'), wal);

    // The user's history: the author's receipts, accepted as the user's own journal.
    const tail = await runCli(['--json', 'audit', 'tail', '-n', '100'], mine, undefined, { HOME: victim });
    const taken = { code: tail.code, authorsRowsShown: author.filter((id) => tail.stdout.includes(id)), stderr: tail.stderr };
    // The gateway starts on it, and the claim the author left open holds the user's own change back.
    const served = await serve(mine, victim);
    const startedOn = served.started?.ok !== false;
    const refusedAsAuthorsClaim = await changeHeldByAuthorsClaim(served.started);
    expect({ tail: taken, gatewayStartedOnIt: startedOn, usersChangeHeldByAuthorsClaim: refusedAsAuthorsClaim, changeRan: readFileSync(marker, 'utf8') }).toEqual({
      tail: { code: 2, authorsRowsShown: [], stderr: expect.any(String) as unknown },
      gatewayStartedOnIt: false,
      usersChangeHeldByAuthorsClaim: false,
      changeRan: '',
    });
  }, 120_000);

  it("the id is no secret: a journal given the user's id, read from the user's journal.anchor, is refused, and verify fails it", async () => {
    const { workspace: authors } = await authorsWorkspace(serve, attackHome());
    const victim = attackHome();
    // The user's own project; a copy of it reaches the author (a bug report's archive of the folder, say).
    const mine = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'mine\n' });
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], mine, undefined, { HOME: victim })).code).toBe(0);
    const leakedId = (JSON.parse(readFileSync(join(mine, '.toolgate', 'journal.anchor'), 'utf8')) as { journal: string }).journal;

    // The author gives the author's journal that id, anchors its head under it, and ships the workspace.
    const shipped = `${authors}-shipped`;
    execFileSync('cp', ['-a', authors, shipped]);
    const file = join(shipped, '.toolgate', 'journal.db');
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.prepare(`UPDATE meta SET value = ? WHERE name = 'journal_id'`).run(leakedId);
    const head = ['events', 'claims', 'receipts', 'checkpoints']
      .flatMap((table) => db.prepare<[], { seq: number; hash: string }>(`SELECT seq, hash FROM ${table}`).all())
      .sort((a, b) => b.seq - a.seq)[0];
    db.close();
    const anchor = JSON.parse(readFileSync(join(shipped, '.toolgate', 'journal.anchor'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(shipped, '.toolgate', 'journal.anchor'), JSON.stringify({ ...anchor, journal: leakedId, rows: head?.seq, head: head?.hash }, null, 2));

    const verified = await runCli(['--json', 'audit', 'verify'], shipped, undefined, { HOME: victim });
    const report = JSON.parse(verified.stdout) as { ok: boolean; journal: { trusted: boolean } };
    const served = await serve(shipped, victim);
    const tail = await runCli(['audit', 'tail'], shipped, undefined, { HOME: victim });
    expect({ verifyOk: report.ok, trusted: report.journal.trusted, gatewayStarted: served.started?.ok !== false, tailCode: tail.code }).toEqual({
      verifyOk: false,
      trusted: false,
      gatewayStarted: false,
      tailCode: 2,
    });
  }, 120_000);

  it('a journal.db-wal the workspace arrived with and no journal: the journal the user\'s toolgate makes is its own, not the log replayed', async () => {
    const { workspace: authors } = await authorsWorkspace(serve, attackHome());
    const author = authorsInvocations(authors);
    // Every page of the author's journal, the id's included: SQLite would replay it into the file it makes.
    const flat = flatCopyOf(join(authors, '.toolgate', 'journal.db'));
    const victim = attackHome();
    const mine = withoutState(authors);
    execFileSync('mkdir', ['-p', join(mine, '.toolgate')]);
    writeFileSync(join(mine, '.toolgate', 'journal.db-wal'), craftWal(flat, new Set()));
    const called = await runCli(['call', 'read_file', '{"path":"notes.md"}'], mine, undefined, { HOME: victim });
    expect(called.code, called.stderr).toBe(0);
    const tail = await runCli(['--json', 'audit', 'tail', '-n', '100'], mine, undefined, { HOME: victim });
    expect(tail.code, tail.stderr).toBe(0);
    expect(author.filter((id) => tail.stdout.includes(id))).toEqual([]);
    expect(existsSync(join(mine, '.toolgate', 'journal.db-wal-held-by-toolgate'))).toBe(true);
  }, 120_000);

  it("an anchor the workspace arrived with is moved aside as the user's toolgate makes the journal: the journal verifies, and is anchored", async () => {
    const author = attackHome();
    const authors = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'notes\n' });
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], authors, undefined, { HOME: author })).code).toBe(0);

    // The archive holds the anchor only (the journal left out, or deleted by the user as the refusal told them to).
    const victim = attackHome();
    const mine = `${authors}-unpacked`;
    execFileSync('cp', ['-a', authors, mine]);
    for (const name of ['journal.db', 'journal.db-wal', 'journal.db-shm']) rmSync(join(mine, '.toolgate', name), { force: true });
    const call = await runCli(['call', 'read_file', '{"path":"notes.md"}'], mine, undefined, { HOME: victim });
    expect(call.code).toBe(0);
    const verified = await runCli(['--json', 'audit', 'verify'], mine, undefined, { HOME: victim });
    const report = JSON.parse(verified.stdout) as { ok: boolean; journal: { trusted: boolean }; anchor?: { case?: string } };
    // The journal is the user's (made, and recorded, by the user's toolgate); it should verify.
    expect({ code: verified.code, ok: report.ok, trusted: report.journal.trusted, anchor: report.anchor?.case, startWarning: call.stderr.includes('no longer matches its anchor') }).toEqual({
      code: 0,
      ok: true,
      trusted: true,
      anchor: 'matches',
      startWarning: false,
    });
  }, 60_000);
});


describe('attack: a rollback journal laid beside the user\'s, and a toolgate killed as it makes the journal', () => {
  it("a hot journal.db-journal laid beside the user's own journal: refused, naming it, by every command, trust-journal too, which rolls nothing in", async () => {
    const { workspace: authors } = await authorsWorkspace(serve, attackHome());
    const author = authorsInvocations(authors);
    const hot = craftHotJournal(join(authors, '.toolgate', 'journal.db'));
    const victim = attackHome();
    const mine = withoutState(authors);
    expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], mine, undefined, { HOME: victim })).code).toBe(0);
    writeFileSync(join(mine, '.toolgate', 'journal.db-journal'), hot);
    // Before, trust-journal (which changes nothing, its help says) opened the journal to write: SQLite rolled the
    // author's pages in, it said the journal was the user's already, and the audit trail showed the author's rows.
    for (const command of [['audit', 'tail'], ['audit', 'trust-journal'], ['audit', 'verify'], ['call', 'read_file', '{"path":"notes.md"}']]) {
      const refused = await runCli(command, mine, undefined, { HOME: victim });
      expect(refused.code, command.join(' ')).toBe(2);
      expect(refused.stderr, command.join(' ')).toContain('journal.db-journal is there');
    }
    // Moved aside, the user's journal is the user's own, as it was.
    renameSync(join(mine, '.toolgate', 'journal.db-journal'), join(mine, 'hot-journal'));
    const tail = await runCli(['--json', 'audit', 'tail', '-n', '100'], mine, undefined, { HOME: victim });
    expect(tail.code, tail.stderr).toBe(0);
    expect(author.filter((id) => tail.stdout.includes(id))).toEqual([]);
  }, 120_000);

  it("a toolgate killed as it makes the journal: the next call finishes or remakes it, and runs", async () => {
    const home = attackHome();
    const refusals: string[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const workspace = makeWorkspace({ mode: 'auto' }, { 'notes.md': 'mine\n' });
      const journal = join(workspace, '.toolgate', 'journal.db');
      const child = spawn(process.execPath, [CLI, 'call', 'read_file', '{"path":"notes.md"}'], { cwd: workspace, env: { ...process.env, HOME: home }, stdio: 'ignore' });
      // Killed (SIGKILL, the OOM killer, a power cut) the moment the file is there.
      const started = Date.now();
      while (!existsSync(journal) && Date.now() - started < 20_000) {
        // Spin: a timer would miss the moment.
      }
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const again = await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: home });
      if (again.code !== 0) refusals.push(again.stderr.split('\n')[0] ?? '');
    }
    expect(refusals).toEqual([]);
  }, 120_000);
});
