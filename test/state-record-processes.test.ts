import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

// Real node processes rewriting one user's record of what their toolgate wrote (`~/.config/toolgate/*.json`), through
// the built CLI's own module: two gateways starting, or `serve` beside `audit trust-key`, at the same instant.
const child = fileURLToPath(new URL('./__fixtures__/state-record-child.mjs', import.meta.url));
const made: string[] = [];

beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../dist/cli/runtime/state-record.js', import.meta.url)))) throw new Error('build first: npm run build');
});
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folders(): { workspace: string; home: string; record: string } {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-record-proc-'));
  const home = mkdtempSync(join(tmpdir(), 'toolgate-record-proc-home-'));
  made.push(workspace, home);
  writeFileSync(join(workspace, 'toolgate.config.json'), '{}');
  mkdirSync(join(home, '.config', 'toolgate'), { recursive: true, mode: 0o700 });
  return { workspace, home, record: join(home, '.config', 'toolgate', 'http-tokens.json') };
}

/** Start a child remembering `count` entries labelled `label` from `startAt` on; resolves with its exit code and output. */
function remember(workspace: string, home: string, label: string, count: number, startAt: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const process_ = spawn(process.execPath, [child, workspace, home, label, String(count), String(startAt)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    process_.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    process_.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    process_.once('exit', (code) => resolve({ code, output }));
  });
}

const entriesOf = (record: string): Record<string, string> => JSON.parse(readFileSync(record, 'utf8')) as Record<string, string>;

describe('the state record, rewritten by many processes at once', () => {
  it('keeps every entry each of 12 processes remembered, run after run', async () => {
    for (let run = 0; run < 3; run += 1) {
      const { workspace, home, record } = folders();
      const labels = Array.from({ length: 12 }, (_, index) => `p${String(index)}`);
      const startAt = Date.now() + 3000;
      const results = await Promise.all(labels.map((label) => remember(workspace, home, label, 10, startAt)));
      for (const result of results) expect(result).toEqual({ code: 0, output: 'done\n' });
      const entries = entriesOf(record);
      const expected = labels.flatMap((label) => Array.from({ length: 10 }, (_, index) => join(workspace, `${label}-${String(index)}`)));
      expect(Object.keys(entries).sort()).toEqual(expected.sort());
      expect(existsSync(`${record}.lock`)).toBe(false);
    }
  }, 120_000);

  it('a lock left by a process that is gone, or by one too old to be working, blocks no one', async () => {
    const { workspace, home, record } = folders();
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = await new Promise<number>((resolve) => gone.once('exit', () => resolve(gone.pid ?? 0)));
    writeFileSync(`${record}.lock`, JSON.stringify({ pid, host: hostname(), nonce: 'left' }), { mode: 0o600 });
    const started = Date.now();
    expect(await remember(workspace, home, 'after-crash', 1, 0)).toEqual({ code: 0, output: 'done\n' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(Object.keys(entriesOf(record))).toEqual([join(workspace, 'after-crash-0')]);
    expect(existsSync(`${record}.lock`)).toBe(false);

    // A lock naming a live process (this one), a minute old: its holder does not hold it that long.
    writeFileSync(`${record}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'hung' }), { mode: 0o600 });
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(`${record}.lock`, minuteAgo, minuteAgo);
    expect(await remember(workspace, home, 'after-hang', 1, 0)).toEqual({ code: 0, output: 'done\n' });
    expect(Object.keys(entriesOf(record))).toContain(join(workspace, 'after-hang-0'));
  }, 60_000);

  it('waits for a live holder, and goes on once it lets go', async () => {
    const { workspace, home, record } = folders();
    writeFileSync(`${record}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'held' }), { mode: 0o600 });
    const waiting = remember(workspace, home, 'waiter', 1, 0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(record)).toBe(false);
    rmSync(`${record}.lock`);
    expect(await waiting).toEqual({ code: 0, output: 'done\n' });
    expect(Object.keys(entriesOf(record))).toEqual([join(workspace, 'waiter-0')]);
  }, 60_000);
});
