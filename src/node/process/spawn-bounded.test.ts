import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawnBounded, type BoundedResult, type SpawnBoundedOptions } from './spawn-bounded.js';

/**
 * Every grandchild appends its pid here as well as printing it, so cleanup
 * finds it even when the call under test never returns the output.
 */
const base = mkdtempSync(path.join(tmpdir(), 'toolgate-spawn-'));
const pidFile = path.join(base, 'pids');
const recordPid = `echo $$ >> ${pidFile}; echo $$`;
/** The same, inside the double quotes of an outer `sh -c`. */
const recordPidQuoted = recordPid.replaceAll('$', '\\$');

afterEach(() => {
  const pids = readFileSync(pidFile, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean).map(Number);
  rmSync(pidFile, { force: true });
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

function run(file: string, args: readonly string[], options: Partial<SpawnBoundedOptions> = {}): Promise<BoundedResult> {
  return spawnBounded({ file, args, cwd: process.cwd(), env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000, maxOutputBytes: 1024 * 1024, killGraceMs: 300, ...options });
}

/** The call's outcome and how long it took, or `hang` once `limitMs` has passed without one. */
async function timed(pending: Promise<BoundedResult>, limitMs: number): Promise<{ result: BoundedResult | 'hang'; ms: number }> {
  const started = Date.now();
  let watchdog: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => {
    watchdog = setTimeout(() => resolve('hang'), limitMs);
  });
  const result = await Promise.race([pending, hang]);
  clearTimeout(watchdog);
  return { result, ms: Date.now() - started };
}

/** Pids printed one per line by grandchildren that hold the pipe. */
function pidsIn(text: string): number[] {
  return text
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

describe.runIf(process.platform === 'linux')('spawnBounded: pipes held past the child', () => {
  it('settles when a grandchild in its own session keeps stdout open and the leader exits at once', async () => {
    // `setsid -f` forks a child into a new session that inherits stdout, and exits: `close` never comes.
    const pending = run('setsid', ['-f', 'sh', '-c', `${recordPid}; exec sleep 60`], { timeoutMs: 1000 });
    const { result, ms } = await timed(pending, 8000);
    expect(result, 'the call must not wait for a process outside the group').not.toBe('hang');
    if (result === 'hang') return;
    expect(ms).toBeLessThan(3000);
    const [grandchild] = pidsIn(result.stdout);
    // What was written before the cut is kept; the result says the output may be incomplete.
    expect(grandchild).toBeGreaterThan(0);
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    expect(result.truncated).toBe(true);
  });

  it('settles after the timeout when the leader runs long and a setsid grandchild holds stdout', async () => {
    const pending = run('sh', ['-c', `setsid -f sh -c "${recordPidQuoted}; exec sleep 60"; exec sleep 60`], { timeoutMs: 1000 });
    const { result, ms } = await timed(pending, 8000);
    expect(result).not.toBe('hang');
    if (result === 'hang') return;
    expect(pidsIn(result.stdout)).toHaveLength(1);
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThan(4000);
    expect(result.timedOut).toBe(true);
    expect(result.truncated).toBe(true);
    expect(result.signal).toBe('SIGTERM');
  });

  it('settles on an abort even when a setsid grandchild holds stderr', async () => {
    const controller = new AbortController();
    const pending = run('sh', ['-c', `setsid -f sh -c "${recordPidQuoted} >&2; exec sleep 60"; exec sleep 60`], { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const { result, ms } = await timed(pending, 8000);
    expect(result).not.toBe('hang');
    if (result === 'hang') return;
    expect(pidsIn(result.stderr)).toHaveLength(1);
    expect(ms).toBeLessThan(3000);
    expect(result.aborted).toBe(true);
  });

  it('cuts a background job of the group that keeps the pipe after the leader exits, and kills it', async () => {
    const { result, ms } = await timed(run('sh', ['-c', `sleep 60 & echo $! | tee -a ${pidFile}`]), 8000);
    expect(result).not.toBe('hang');
    if (result === 'hang') return;
    const [background] = pidsIn(result.stdout);
    expect(ms).toBeLessThan(3000);
    expect(background).toBeGreaterThan(0);
    // SIGKILL is sent to the group as the call settles; the kernel ends the job when it next schedules it, which
    // on a loaded machine is not always before this line runs.
    await expect.poll(() => alive(background!), { timeout: 2000 }).toBe(false);
  });
});

describe.runIf(process.platform === 'linux')('spawnBounded: no output lost in the normal case', () => {
  it('keeps every byte of a large output written just before exit', async () => {
    const result = await run('sh', ['-c', 'head -c 300000 /dev/zero | tr "\\0" a']);
    expect(result.stdout.length).toBe(300_000);
    expect(result.truncated).toBe(false);
    expect(result.exitCode).toBe(0);
  });

  it('waits (briefly) for a group member that writes and closes the pipe right after the leader exits', async () => {
    const result = await run('sh', ['-c', '(sleep 0.1; echo late; echo err >&2) & echo early']);
    expect(result.stdout).toBe('early\nlate\n');
    expect(result.stderr).toBe('err\n');
    expect(result.truncated).toBe(false);
    expect(result.exitCode).toBe(0);
  });

  it('reports a failed spawn without waiting', async () => {
    const { result, ms } = await timed(run('/nonexistent/program', []), 8000);
    expect(result).not.toBe('hang');
    if (result === 'hang') return;
    expect(result.spawnError).toBe('ENOENT');
    expect(ms).toBeLessThan(1000);
  });
});
