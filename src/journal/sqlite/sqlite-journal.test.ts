import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createToolRegistry, defineTool, withAttachments, type ToolDefinition, type ToolPolicy, type ToolRegistry } from '../../core/internal.js';
import { createSqliteJournal } from './create-sqlite-journal.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { receipt } from './__fixtures__/receipt.js';

let dir: string;
const open: SqliteJournal[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-journal-'));
});
afterEach(() => {
  for (const journal of open.splice(0)) journal.close();
  rmSync(dir, { recursive: true, force: true });
});

function journalAt(path = join(dir, 'journal.db'), options: Parameters<typeof createSqliteJournal>[1] = {}): SqliteJournal {
  const journal = createSqliteJournal(path, { onUnresolved: () => undefined, ...options });
  open.push(journal);
  return journal;
}

function counterRegistry(journal: SqliteJournal, runs: { count: number }): ToolRegistry {
  const bump: ToolDefinition<{ by: number }, { total: number }> = {
    name: 'bump',
    description: 'Add to a counter and return the new total.',
    input: { type: 'object', properties: { by: { type: 'number' } }, required: ['by'], additionalProperties: false },
    journal: 'effect',
    dispatch: (args: { by: number }) => {
      runs.count += args.by;
      return { total: runs.count };
    },
  };
  return createToolRegistry({ tools: [bump], journal });
}

const context = { grantedTools: ['bump'], runId: 'run-1' };

describe('the durable effect bracket', () => {
  it('claims, settles, and answers a retry of the same call from the recording', async () => {
    const journal = journalAt();
    const runs = { count: 0 };
    const registry = counterRegistry(journal, runs);
    const first = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 2 } }, context);
    const retry = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 2 } }, context);
    expect(first.ok && first.value).toEqual({ total: 2 });
    expect(retry.ok && retry.value).toEqual({ total: 2 });
    expect(retry.receipt.status).toBe('replayed');
    expect(runs.count).toBe(2);
    const other = await registry.dispatch({ callId: 'c2', name: 'bump', arguments: { by: 2 } }, context);
    expect(other.ok && other.value).toEqual({ total: 4 });
    expect(await journal.unresolved()).toEqual([]);
    expect((await journal.verify()).ok).toBe(true);
    const recorded = await journal.recordings({ runId: 'run-1' });
    expect(recorded.map((entry) => entry.value)).toEqual([{ total: 2 }, { total: 4 }]);
  });

  it('discards the claim when beforeDispatch refuses, so a later dispatch runs', async () => {
    const journal = journalAt();
    const runs = { count: 0 };
    const registry = counterRegistry(journal, runs);
    const refused = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, { ...context, beforeDispatch: () => { throw new Error('latched'); } });
    expect(refused.ok ? undefined : refused.error.code).toBe('POLICY_DENIED');
    expect(runs.count).toBe(0);
    expect(await journal.unresolved()).toEqual([]);
    const states = new Database(journal.path, { readonly: true }).prepare('SELECT state FROM claims ORDER BY seq').pluck().all();
    expect(states).toEqual(['claimed', 'discarded']);
    const again = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    expect(again.ok).toBe(true);
    expect(runs.count).toBe(1);
  });

  it('refuses the action once a claim it could not discard is left open: the claim is no longer a call in flight', async () => {
    const journal = journalAt();
    const runs = { count: 0 };
    const registry = counterRegistry(journal, runs);
    const other = new Database(journal.path);
    other.exec(`CREATE TRIGGER no_discards BEFORE INSERT ON claims WHEN NEW.state = 'discarded' BEGIN SELECT RAISE(ABORT, 'no discards'); END`);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const latched = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, { ...context, beforeDispatch: () => { throw new Error('latched'); } });
    expect(latched.ok).toBe(false);
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
    other.exec(`DROP TRIGGER no_discards`);
    other.close();
    const refused = await registry.dispatch({ callId: 'c2', name: 'bump', arguments: { by: 1 } }, context);
    expect(refused.ok ? undefined : (refused.error as { reason?: string }).reason).toBe('unresolved_claim');
    expect(runs.count).toBe(0);
    expect((await journal.unresolved()).map((claim) => claim.callId)).toEqual(['c1']);
  });

  it('refuses to re-run a call whose claim a crash left unresolved, until an operator releases it', async () => {
    const path = join(dir, 'journal.db');
    const runs = { count: 0 };
    const crashed = journalAt(path);
    const plan = await counterRegistry(crashed, runs).prepare({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    // A claim written and never settled: what a crash between stage 10 and 19 leaves.
    const actionDigest = plan.actionDigest!;
    await crashed.prepare({ key: `${actionDigest}:c1`, callId: 'c1', runId: 'run-1', toolName: 'bump', toolVersion: undefined, agent: undefined, actionDigest, inputDigest: plan.inputDigest!, arguments: { by: 1 }, tier: 'effect', startedAt: 1 });
    crashed.close();

    const reported: unknown[] = [];
    const restarted = journalAt(path, { onUnresolved: (claims) => reported.push(...claims) });
    expect(reported).toHaveLength(1);
    const [claim] = await restarted.unresolved();
    expect(claim).toMatchObject({ toolName: 'bump', callId: 'c1', runId: 'run-1', holder: expect.stringContaining(`pid ${process.pid}`) });
    const registry = counterRegistry(restarted, runs);
    const refused = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? undefined : { code: refused.error.code, reason: (refused.error as { reason?: string }).reason }).toEqual({ code: 'POLICY_DENIED', reason: 'unresolved_claim' });
    expect(runs.count).toBe(0);

    await restarted.resolveClaim(claim!.claimId, { resolution: 'failed', by: 'operator', note: 'checked: nothing was written' });
    expect(await restarted.unresolved()).toEqual([]);
    const rerun = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    expect(rerun.ok).toBe(true);
    expect(runs.count).toBe(1);
    expect((await restarted.verify()).ok).toBe(true);
  });

  it('after a crash refuses the same action under any call id, naming the claim; its own concurrent calls of one action still run', async () => {
    const path = join(dir, 'journal.db');
    const runs = { count: 0 };
    const crashed = journalAt(path);
    const plan = await counterRegistry(crashed, runs).prepare({ callId: 'lost', name: 'bump', arguments: { by: 1 } }, context);
    const actionDigest = plan.actionDigest!;
    await crashed.prepare({ key: `${actionDigest}:lost`, callId: 'lost', runId: 'run-1', toolName: 'bump', toolVersion: undefined, agent: 'agent-a', actionDigest, inputDigest: plan.inputDigest!, arguments: { by: 1 }, tier: 'effect', startedAt: 1_700_000_000_000 });
    crashed.close();

    const restarted = journalAt(path);
    const registry = counterRegistry(restarted, runs);
    // A client retrying after the crash sends a new call id: the key differs, the action does not.
    const retried = await registry.dispatch({ callId: 'retry-1', name: 'bump', arguments: { by: 1 } }, context);
    expect(retried.ok ? undefined : retried.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'unresolved_claim' });
    const [claim] = await restarted.unresolved();
    expect(retried.ok ? '' : retried.error.message).toBe(
      `Tool "bump" was refused: an earlier dispatch of the same action (journal claim ${claim!.claimId}, started 2023-11-14T22:13:20.000Z) may have started and never settled; it is not run again until an operator resolves that claim.`,
    );
    expect(claim).toMatchObject({ agent: 'agent-a', actionDigest, arguments: { by: 1 } });
    // Another action is not in doubt.
    expect((await registry.dispatch({ callId: 'other', name: 'bump', arguments: { by: 5 } }, context)).ok).toBe(true);
    expect(runs.count).toBe(5);

    await restarted.resolveClaim(claim!.claimId, { resolution: 'done', by: 'operator', note: 'the counter did move' });
    expect(await restarted.unresolved()).toEqual([]);
    const reader = new Database(path, { readonly: true });
    expect(JSON.parse(reader.prepare(`SELECT body FROM claims WHERE state = 'released'`).pluck().get() as string)).toEqual({ resolution: 'done', by: 'operator', note: 'the counter did move' });
    reader.close();
    // Two calls of the one action in flight together in this process: neither doubts the other.
    const both = await Promise.all([registry.dispatch({ callId: 'a', name: 'bump', arguments: { by: 1 } }, context), registry.dispatch({ callId: 'b', name: 'bump', arguments: { by: 1 } }, context)]);
    expect(both.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(runs.count).toBe(7);
    expect((await restarted.verify()).ok).toBe(true);
    await expect(restarted.resolveClaim(claim!.claimId, { resolution: 'failed', by: 'operator' })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    await expect(restarted.resolveClaim(claim!.claimId, { resolution: 'release' as 'failed', by: 'operator' })).rejects.toThrow(/failed" or "done/);
  });

  it('records the resolved target in the claim, for the operator who resolves it', async () => {
    const journal = journalAt();
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const write: ToolDefinition<{ path: string }> = {
      name: 'write_note',
      description: 'Write a note.',
      input: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      policy: { fsScoped: true, fsWrite: true },
      policyTarget: (args) => ({ path: args.path }),
      dispatch: () => (started(), new Promise(() => undefined)),
    };
    void createToolRegistry({ tools: [write], journal }).dispatch({ callId: 'w1', name: 'write_note', arguments: { path: 'notes/a.md' } }, { grantedTools: ['write_note'] });
    await running;
    const other = journalAt(journal.path);
    const [claim] = await other.unresolved();
    expect(claim?.target).toMatchObject({ access: 'write', files: [{ path: 'notes/a.md' }] });
  });

  it('audits a call refused before it could claim as a chained event, never as a result a retry would replay', async () => {
    const journal = journalAt();
    const runs = { count: 0 };
    const deny: ToolPolicy = { version: 1, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'deny', reason: 'rule_denied', matched: [] }) };
    const allow: ToolPolicy = { version: 2, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'allow', matched: [] }) };
    const registry = counterRegistry(journal, runs);
    const denied = await registry.withPolicy(deny).dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    expect(denied.ok ? undefined : denied.error.code).toBe('POLICY_DENIED');
    const reader = new Database(journal.path, { readonly: true });
    expect(reader.prepare(`SELECT type, json_extract(body, '$.status') AS status FROM events`).all()).toEqual([{ type: 'call-refused', status: 'denied' }]);
    expect(reader.prepare('SELECT count(*) FROM receipts').pluck().get()).toBe(0);
    const allowed = await registry.withPolicy(allow).dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    expect(allowed.ok).toBe(true);
    expect(runs.count).toBe(1);
    expect((await journal.verify()).ok).toBe(true);
  });

  it('refuses a second dispatch of the same call while the first is still running', async () => {
    const journal = journalAt();
    let release: () => void = () => undefined;
    let bodies = 0;
    const slow: ToolDefinition<Record<string, never>, string> = {
      name: 'slow',
      description: 'Slow effect.',
      input: { type: 'object' },
      journal: 'effect',
      dispatch: () => {
        bodies += 1;
        return new Promise<string>((resolve) => (release = () => resolve('done')));
      },
    };
    const registry = createToolRegistry({ tools: [slow], journal });
    const call = { callId: 'same', name: 'slow', arguments: {} };
    const first = registry.dispatch(call, { grantedTools: ['slow'] });
    await vi.waitFor(() => expect(bodies).toBe(1));
    const second = await registry.dispatch(call, { grantedTools: ['slow'] });
    expect(second.ok ? undefined : (second.error as { reason?: string }).reason).toBe('unresolved_claim');
    // In flight here, so not reported as left behind by a crash.
    expect(await journal.unresolved()).toEqual([]);
    release();
    expect((await first).ok).toBe(true);
    const third = await registry.dispatch(call, { grantedTools: ['slow'] });
    expect(third.ok && third.receipt.status).toBe('replayed');
    expect(bodies).toBe(1);
  });

  it('fails closed when the claim cannot be written: the body never runs', async () => {
    const journal = journalAt();
    const runs = { count: 0 };
    const registry = counterRegistry(journal, runs);
    journal.close();
    const outcome = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    expect(outcome.ok ? undefined : outcome.error.code).toBe('TOOL_UNAVAILABLE');
    expect(runs.count).toBe(0);
  });

  it('refuses media from a journaled call whose handle is not content-addressed (a replay could not check its bytes) and records the refusal', async () => {
    const journal = journalAt();
    const snap: ToolDefinition<Record<string, never>> = {
      name: 'snap',
      description: 'Take a picture.',
      input: { type: 'object' },
      journal: 'effect',
      dispatch: () => withAttachments({ taken: true }, [{ handle: 'media:sha256:00', mediaType: 'image/png', bytes: 1 }]),
    };
    const outcome = await createToolRegistry({ tools: [snap], journal }).dispatch({ callId: 's1', name: 'snap', arguments: {} }, { grantedTools: ['snap'], runId: 'm' });
    expect(outcome.ok ? undefined : outcome.error.code).toBe('OUTPUT_INVALID');
    const [recorded] = await journal.recordings({ runId: 'm' });
    expect(recorded).toMatchObject({ ok: false, error: { code: 'OUTPUT_INVALID' } });
    expect(await journal.unresolved()).toEqual([]);
  });

  it('journals every call, tier none as record, when recordAll is set', async () => {
    const journal = journalAt(join(dir, 'all.db'), { recordAll: true });
    const echo = defineTool({ name: 'echo', description: 'Echo.', input: { type: 'object', properties: { text: { type: 'string' } } }, dispatch: (args: { text?: string }) => args.text ?? '' });
    const registry = createToolRegistry({ tools: [echo], journal });
    await registry.dispatch({ callId: 'e1', name: 'echo', arguments: { text: 'hi' } }, { grantedTools: ['echo'], runId: 'r' });
    const [recorded] = await journal.recordings({ runId: 'r' });
    expect(recorded?.value).toBe('hi');
    expect(new Database(journal.path, { readonly: true }).prepare('SELECT count(*) FROM claims').pluck().get()).toBe(0);
  });

  it('with recordAll, claims a tier-none tool that declares an effect other than read: a crash in it leaves a claim, and the action is refused', async () => {
    const path = join(dir, 'effects.db');
    const journal = journalAt(path, { recordAll: true });
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const apply = defineTool({ name: 'apply', description: 'Change the world.', effect: 'external', input: { type: 'object', properties: { change: { type: 'string' } } }, dispatch: () => (started(), new Promise<string>(() => undefined)) });
    void createToolRegistry({ tools: [apply], journal }).dispatch({ callId: 'x1', name: 'apply', arguments: { change: 'c' } }, { grantedTools: ['apply'] });
    await running;
    // Another process over the same file, as a restarted gateway would be: the claim is open and the action refused.
    const restarted = journalAt(path, { recordAll: true });
    const [claim] = await restarted.unresolved();
    expect(claim).toMatchObject({ toolName: 'apply', callId: 'x1', arguments: { change: 'c' } });
    const again = await createToolRegistry({ tools: [apply], journal: restarted }).dispatch({ callId: 'x2', name: 'apply', arguments: { change: 'c' } }, { grantedTools: ['apply'] });
    expect(again.ok ? undefined : again.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'unresolved_claim' });
  });

  it('refuses a resolution that names nobody, carries a note that is not short text, or names no open claim, and writes nothing', async () => {
    const journal = journalAt();
    const rows = (): unknown => new Database(journal.path, { readonly: true }).prepare('SELECT count(*) FROM claims').pluck().get();
    const before = rows();
    await expect(journal.resolveClaim('claim-1', { resolution: 'failed', by: '' })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    await expect(journal.resolveClaim('claim-1', { resolution: 'failed', by: 'operator', note: 'x'.repeat(1001) })).rejects.toThrow(/at most 1000 characters/);
    await expect(journal.resolveClaim('claim-1', { resolution: 'failed', by: 'operator', note: 7 as unknown as string })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    await expect(journal.resolveClaim('no-such-claim', { resolution: 'done', by: 'operator' })).rejects.toThrow(/does not name an unresolved claim/);
    expect(rows()).toBe(before);
  });
});

describe('batched settles', () => {
  const receiptCount = (path: string): number => {
    const reader = new Database(path, { readonly: true });
    try {
      return reader.prepare('SELECT count(*) FROM receipts').pluck().get() as number;
    } finally {
      reader.close();
    }
  };

  it('a settled call returns before its receipt commits; the next claim’s commit carries it, and the same process replays it at once', async () => {
    const journal = journalAt();
    const runs = { count: 0 };
    const registry = counterRegistry(journal, runs);
    expect((await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context)).ok).toBe(true);
    // Another connection does not see the receipt yet: it waits for the next batch.
    expect(receiptCount(journal.path)).toBe(0);
    // A retry in this process finds the queued receipt and replays it.
    const retry = await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    expect(retry.ok && retry.receipt.status).toBe('replayed');
    expect(runs.count).toBe(1);
    // The next call's claim commits the settle with it.
    await registry.dispatch({ callId: 'c2', name: 'bump', arguments: { by: 1 } }, context);
    expect(receiptCount(journal.path)).toBe(1);
    // A read commits what is queued first: both calls are recorded.
    expect((await journal.recordings({ runId: 'run-1' })).length).toBe(2);
  });

  it('a call of the same action that claims in the turn an earlier one settles is not taken for a crashed claim', async () => {
    const journal = journalAt();
    const claimOf = (callId: string) =>
      journal.prepare({ key: `act:${callId}`, callId, runId: 'run-1', toolName: 'bump', toolVersion: undefined, agent: 'agent-a', actionDigest: 'act', inputDigest: 'in', arguments: { by: 1 }, tier: 'effect', startedAt: 1_700_000_000_000 });
    const first = await claimOf('c1');
    expect(first.status).toBe('claimed');
    // The second claim is queued before the first call's receipt: both land in one batch, the claim first.
    const second = claimOf('c2');
    await journal.settle(first.status === 'claimed' ? first.claim : undefined, { ok: true, value: 1, content: '1', receipt: receipt(1) });
    expect((await second).status).toBe('claimed');
    expect(await journal.unresolved()).toEqual([]);
  });

  it('runs 64 calls of one action in flight side by side, round after round, and refuses the action once a claim of it is left in doubt', async () => {
    const journal = journalAt();
    const runs = { count: 0 };
    const registry = counterRegistry(journal, runs);
    let id = 0;
    const round = () => Promise.all(Array.from({ length: 64 }, () => registry.dispatch({ callId: `c${(id += 1)}`, name: 'bump', arguments: { by: 1 } }, context)));
    for (let index = 0; index < 3; index += 1) expect((await round()).every((outcome) => outcome.ok)).toBe(true);
    expect(runs.count).toBe(192);
    journal.flush();
    // The next receipt cannot commit: its call returned, its claim stays open and is no longer this instance's.
    const other = new Database(journal.path);
    other.exec(`CREATE TRIGGER no_receipts BEFORE INSERT ON receipts BEGIN SELECT RAISE(ABORT, 'no receipts'); END`);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect((await registry.dispatch({ callId: 'lost', name: 'bump', arguments: { by: 1 } }, context)).ok).toBe(true);
    journal.flush();
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
    other.exec(`DROP TRIGGER no_receipts`);
    other.close();
    const refused = await round();
    expect(refused.every((outcome) => !outcome.ok && (outcome.error as { reason?: string }).reason === 'unresolved_claim')).toBe(true);
    expect(runs.count).toBe(193);
    expect((await journal.unresolved()).map((claim) => claim.callId)).toEqual(['lost']);
  });

  it('commits a settle within the batch delay when no claim follows', async () => {
    const journal = journalAt();
    const registry = counterRegistry(journal, { count: 0 });
    await registry.dispatch({ callId: 'c1', name: 'bump', arguments: { by: 1 } }, context);
    expect(receiptCount(journal.path)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiptCount(journal.path)).toBe(1);
  });
});

describe('the file', () => {
  it('defaults to .toolgate/journal.db under the workspace, private to the user, in WAL mode', () => {
    const journal = createSqliteJournal(undefined, { workspace: dir, onUnresolved: () => undefined });
    open.push(journal);
    expect(journal.path).toBe(join(dir, '.toolgate', 'journal.db'));
    expect(statSync(journal.path).mode & 0o777).toBe(0o600);
    expect(new Database(journal.path, { readonly: true }).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(statSync(`${journal.path}-wal`).mode & 0o777).toBe(0o600);
  });

  it('refuses a journal path that is a symbolic link', () => {
    writeFileSync(join(dir, 'elsewhere.db'), '');
    symlinkSync(join(dir, 'elsewhere.db'), join(dir, 'linked.db'));
    expect(() => createSqliteJournal(join(dir, 'linked.db'))).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
  });

  it('refuses UPDATE and DELETE of recorded history through the triggers', async () => {
    const journal = journalAt();
    await journal.append({ type: 'note', at: 1, data: { text: 'a' } });
    const db = new Database(journal.path);
    expect(() => db.prepare(`UPDATE events SET body = '{}'`).run()).toThrow(/append-only/);
    expect(() => db.prepare(`DELETE FROM events`).run()).toThrow(/append-only/);
    db.close();
    expect((await journal.verify()).ok).toBe(true);
  });

  it('rejects a malformed path and event type with typed errors', async () => {
    expect(() => createSqliteJournal('bad\0path')).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
    const journal = journalAt();
    await expect(journal.append({ type: '', at: 1, data: null })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });
});
