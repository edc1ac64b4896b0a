import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// Real processes against a real database file, through the built package.
const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
let dir: string;

beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../dist/journal/sqlite/index.js', import.meta.url)))) throw new Error('build first: npx tsc -p tsconfig.build.json');
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-journal-proc-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** One line a child printed: its JSON object, or the text when it is not one. */
type Line = Readonly<Record<string, unknown>> | string;

interface Child {
  readonly process: ChildProcess;
  readonly lines: Line[];
  waitFor(predicate: (line: Line) => boolean): Promise<void>;
  exited: Promise<number | null>;
}

function run(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [join(fixtures, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Line[] = [];
  const waiters: { predicate: (line: Line) => boolean; resolve: () => void }[] = [];
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const line: Line = text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : text;
      lines.push(line);
      for (const waiter of waiters.filter((entry) => entry.predicate(line))) waiter.resolve();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    process: child,
    lines,
    exited,
    waitFor: (predicate) =>
      lines.some(predicate)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiters.push({ predicate, resolve });
            void exited.then(() => reject(new Error(`child exited before the expected line; saw ${JSON.stringify(lines)}`)));
          }),
  };
}

describe('crash between claim and settle', () => {
  it('kill -9 mid-body: the effect happened once, the claim is reported unresolved, the rerun is refused, the chain verifies', async () => {
    const db = join(dir, 'journal.db');
    const marker = join(dir, 'marker.txt');
    const first = run('journal-crash-child.mjs', [db, marker]);
    await first.waitFor((line) => typeof line === 'object' && line.bodyStarted === true);
    first.process.kill('SIGKILL');
    await first.exited;
    expect(readFileSync(marker, 'utf8')).toBe('effect\n');

    const second = run('journal-crash-child.mjs', [db, marker]);
    expect(await second.exited).toBe(0);
    expect(second.lines).toEqual([{ unresolvedAtOpen: 1 }, { ok: false, code: 'POLICY_DENIED', reason: 'unresolved_claim' }]);
    expect(readFileSync(marker, 'utf8')).toBe('effect\n');

    const { createSqliteJournal } = await import('toolgate/sqlite');
    const journal = createSqliteJournal(db, { onUnresolved: () => undefined });
    try {
      expect(await journal.unresolved()).toEqual([expect.objectContaining({ toolName: 'slow_write', callId: 'call-1', runId: 'run-crash' })]);
      expect(await journal.verify()).toMatchObject({ ok: true });
    } finally {
      journal.close();
    }
  });
});

describe('two processes appending to one file', () => {
  it('lose no row: 2 × 10,000 receipts, every one present once, and the chain verifies', async () => {
    const db = join(dir, 'journal.db');
    const writers = [run('journal-append-child.mjs', [db, 'a', '10000']), run('journal-append-child.mjs', [db, 'b', '10000'])];
    expect(await Promise.all(writers.map((writer) => writer.exited))).toEqual([0, 0]);
    const reader = new Database(db, { readonly: true });
    const counts = reader.prepare(`SELECT agent, count(*) AS n, count(DISTINCT call_id) AS distinct_calls FROM (SELECT json_extract(body, '$.receipt.agent') AS agent, json_extract(body, '$.receipt.callId') AS call_id FROM receipts) GROUP BY agent ORDER BY agent`).all();
    reader.close();
    expect(counts).toEqual([
      { agent: 'a', n: 10_000, distinct_calls: 10_000 },
      { agent: 'b', n: 10_000, distinct_calls: 10_000 },
    ]);
    const { createSqliteJournal } = await import('toolgate/sqlite');
    const journal = createSqliteJournal(db, { onUnresolved: () => undefined });
    try {
      expect(await journal.verify()).toMatchObject({ ok: true, rows: 20_000 });
    } finally {
      journal.close();
    }
  });
});

describe('processes creating the same fresh files at the same instants', () => {
  it('all open every one (the WAL switch waits out the race instead of failing), and every append lands', async () => {
    const files = 25;
    const startAt = String(Date.now() + 1500);
    const openers = ['a', 'b', 'c', 'd'].map((label) => run('journal-open-child.mjs', [dir, label, startAt, String(files)]));
    expect(await Promise.all(openers.map((opener) => opener.exited))).toEqual([0, 0, 0, 0]);
    const { createSqliteJournal } = await import('toolgate/sqlite');
    for (const index of [0, files - 1]) {
      const journal = createSqliteJournal(join(dir, `j-${index}.db`), { onUnresolved: () => undefined });
      try {
        expect(await journal.verify()).toMatchObject({ ok: true });
      } finally {
        journal.close();
      }
    }
    const reader = new Database(join(dir, 'j-0.db'), { readonly: true });
    expect(reader.pragma('journal_mode', { simple: true })).toBe('wal');
    reader.close();
  });
});

describe('two processes signing with a key neither has created yet', () => {
  it('end up sharing one key, and every signature verifies', async () => {
    const db = join(dir, 'journal.db');
    const keys = join(dir, 'keys');
    const writers = [run('journal-append-child.mjs', [db, 'a', '200', keys]), run('journal-append-child.mjs', [db, 'b', '200', keys])];
    expect(await Promise.all(writers.map((writer) => writer.exited))).toEqual([0, 0]);
    expect(readdirSync(keys)).toEqual(['journal-ed25519.pem']);
    const { createSqliteJournal } = await import('toolgate/sqlite');
    const journal = createSqliteJournal(db, { sign: { keyDir: keys }, onUnresolved: () => undefined });
    try {
      // Every receipt, and at most one event per writer signing over the commits it sealed before it closed.
      const verified = await journal.verify();
      expect(verified.ok).toBe(true);
      const reader = new Database(db, { readonly: true });
      try {
        expect(reader.prepare('SELECT count(*) FROM receipts').pluck().get()).toBe(400);
        const events = reader.prepare<[], string>('SELECT type FROM events').pluck().all();
        expect(events.every((type) => type === 'journal-signed')).toBe(true);
        expect(events.length).toBeLessThanOrEqual(2);
        expect(verified.rows).toBe(400 + events.length);
      } finally {
        reader.close();
      }
    } finally {
      journal.close();
    }
  });
});

describe('group commit under concurrency, killed between batches', () => {
  // By wave 60 the log has passed 1,000 uncopied frames twice over, and the worker thread copies it into the database
  // file beside the commits (see wal-checkpointer.test.ts): the kill can land in the middle of that copy.
  it.each([
    { killAfter: 4, when: 'in its first waves' },
    { killAfter: 60, when: 'while the WAL checkpoint worker copies the log into the file' },
  ])('loses no claim and doubles no effect, killed $when: every effect that ran has a durable claim; the rerun replays or refuses each one', async ({ killAfter }) => {
    const db = join(dir, 'journal.db');
    const effects = join(dir, 'effects.txt');
    const first = run('journal-group-child.mjs', [db, effects, '1000']);
    // Several waves of 64 calls have been claimed, run and settled in shared commits: kill it mid-stream.
    // A wave's settles commit with the next wave's claims: once wave N is reported, waves before it are settled.
    await first.waitFor((line) => typeof line === 'object' && typeof line.wave === 'number' && line.wave >= killAfter);
    const copied = statSync(db).size;
    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    // Rows were copied out of the log into the file before the kill: far more than the schema alone.
    if (killAfter >= 60) expect(copied).toBeGreaterThan(1024 * 1024);
    const ran = readFileSync(effects, 'utf8').split('\n').filter((line) => line.length > 0);
    expect(ran.length).toBeGreaterThanOrEqual(killAfter * 64);
    expect(new Set(ran).size).toBe(ran.length);

    const reader = new Database(db, { readonly: true });
    const claimed = new Set(reader.prepare(`SELECT json_extract(body, '$.callId') AS id FROM claims WHERE state = 'claimed'`).pluck().all() as string[]);
    // A receipt that names its claim settles it.
    const settled = reader.prepare(`SELECT count(*) FROM receipts WHERE claim_id IS NOT NULL`).pluck().get() as number;
    reader.close();
    // No claim lost: each effect ran only after its claim was committed.
    for (const id of ran) expect(claimed.has(id), id).toBe(true);
    expect(settled).toBeGreaterThanOrEqual(killAfter * 64);

    // The same calls again, in a new process, up to the wave the first one reached: the last one it claimed, whose
    // effects the kill may have stopped before any ran (a claim left unresolved, which the rerun must then meet).
    const waves = Math.max(...[...ran, ...claimed].map((id) => Number(id.split('-')[1]))) + 1;
    const second = run('journal-group-child.mjs', [db, effects, String(waves)]);
    expect(await second.exited).toBe(0);
    const counts = second.lines.at(-1) as { ok: number; replayed: number; refused: number };
    const rerun = readFileSync(effects, 'utf8').split('\n').filter((line) => line.length > 0);
    // No effect doubled: every call that ran before either replayed its recording or was refused as unresolved.
    const before = new Set(ran);
    expect(rerun.slice(ran.length).filter((id) => before.has(id))).toEqual([]);
    expect(new Set(rerun).size).toBe(rerun.length);
    expect(counts.replayed + counts.refused).toBeGreaterThanOrEqual(ran.length);
    expect(counts.ok + counts.replayed + counts.refused).toBe(waves * 64);

    const { createSqliteJournal } = await import('toolgate/sqlite');
    const journal = createSqliteJournal(db, { onUnresolved: () => undefined });
    try {
      expect(await journal.verify()).toMatchObject({ ok: true });
      expect((await journal.unresolved()).length).toBe(counts.refused);
    } finally {
      journal.close();
    }
  });

  it('one call at a time, signed: a settle waiting for the next claim’s commit is lost in the crash, never its claim; the chain ends signed', async () => {
    const db = join(dir, 'journal.db');
    const effects = join(dir, 'effects.txt');
    const keys = join(dir, 'keys');
    const first = run('journal-group-child.mjs', [db, effects, '100000', '1', keys]);
    await first.waitFor((line) => typeof line === 'object' && typeof line.wave === 'number' && line.wave >= 200);
    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const ran = readFileSync(effects, 'utf8').split('\n').filter((line) => line.length > 0);
    expect(new Set(ran).size).toBe(ran.length);
    const reader = new Database(db, { readonly: true });
    const claimed = new Set(reader.prepare(`SELECT json_extract(body, '$.callId') AS id FROM claims WHERE state = 'claimed'`).pluck().all() as string[]);
    reader.close();
    for (const id of ran) expect(claimed.has(id), id).toBe(true);

    // The same calls again, and the next one (claimed, perhaps, before its body could run).
    const second = run('journal-group-child.mjs', [db, effects, String(ran.length + 1), '1', keys]);
    expect(await second.exited).toBe(0);
    const counts = second.lines.at(-1) as { ok: number; replayed: number; refused: number };
    const rerun = readFileSync(effects, 'utf8').split('\n').filter((line) => line.length > 0);
    const before = new Set(ran);
    expect(rerun.slice(ran.length).filter((id) => before.has(id))).toEqual([]);
    expect(counts.replayed + counts.refused).toBeGreaterThanOrEqual(ran.length);
    expect(counts.ok + counts.replayed + counts.refused).toBe(ran.length + 1);
    // Only the last call is in doubt: its settle waited for the next claim's commit, or its body was running.
    expect(counts.refused).toBeLessThanOrEqual(1);

    const { createSqliteJournal } = await import('toolgate/sqlite');
    const journal = createSqliteJournal(db, { sign: { keyDir: keys }, onUnresolved: () => undefined });
    try {
      expect(await journal.verify()).toMatchObject({ ok: true });
      expect((await journal.unresolved()).length).toBe(counts.refused);
    } finally {
      journal.close();
    }
  });
});

describe('an effect-tier call another process recorded, before and past a fold of the receipt key index', () => {
  it('is replayed, never run again: while its recorder still holds it unfolded, after another process folded it, after the recorder was killed', async () => {
    const db = join(dir, 'journal.db');
    const marker = join(dir, 'marker.txt');
    const ran = (): string[] => readFileSync(marker, 'utf8').split('\n').filter((line) => line.startsWith('call-'));
    const replayed = (child: Child, callId: string): boolean => child.lines.some((line) => typeof line === 'object' && line.callId === callId && line.ok === true);
    // The recorder stays open with call-1 in its tail: not yet in receipt_keys.
    const recorder = run('journal-replay-child.mjs', [db, marker, 'call-1', '0', 'hold']);
    await recorder.waitFor((line) => typeof line === 'object' && line.done === true);
    const beforeFold = run('journal-replay-child.mjs', [db, marker, 'call-1', '0', '']);
    expect(await beforeFold.exited).toBe(0);
    expect(replayed(beforeFold, 'call-1')).toBe(true);
    // 300 calls (a claim and a receipt each) take the chain past a fold; then call-1 again, found in receipt_keys.
    const folder = run('journal-replay-child.mjs', [db, marker, 'call-2,call-1', '300', '']);
    expect(await folder.exited).toBe(0);
    recorder.process.kill('SIGKILL');
    await recorder.exited;
    const afterCrash = run('journal-replay-child.mjs', [db, marker, 'call-1,call-2', '0', '']);
    expect(await afterCrash.exited).toBe(0);
    expect(replayed(afterCrash, 'call-1') && replayed(afterCrash, 'call-2')).toBe(true);
    expect(ran()).toEqual(['call-1', 'call-2']);
    const reader = new Database(db, { readonly: true });
    expect(reader.prepare(`SELECT count(*) FROM receipt_keys WHERE key LIKE '%:call-1'`).pluck().get()).toBe(1);
    reader.close();
    const { createSqliteJournal } = await import('toolgate/sqlite');
    const journal = createSqliteJournal(db, { onUnresolved: () => undefined });
    try {
      expect(await journal.verify()).toMatchObject({ ok: true });
    } finally {
      journal.close();
    }
  });
});
