import { spawn } from 'node:child_process';
import type { ProcessResult } from '../../core/internal.js';

export interface SpawnBoundedOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin?: string | undefined;
  readonly timeoutMs: number;
  /** Cap on stdout and on stderr, each, in bytes. */
  readonly maxOutputBytes: number;
  /** Between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /**
   * How long the output pipes may stay open once the child has exited (or,
   * after a kill, once SIGKILL was sent), before the group is killed and,
   * one more grace later, the pipes are cut. Default 250 ms.
   */
  readonly drainGraceMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A process result before the sandbox is known, plus why it ended. */
export interface BoundedResult extends Omit<ProcessResult, 'sandbox'> {
  readonly aborted: boolean;
  /** The spawn itself failed (`ENOENT`, `EACCES`, …). */
  readonly spawnError?: string;
}

const DEFAULT_DRAIN_GRACE_MS = 250;

/**
 * Run one child with `shell: false` in its own process group. A timeout, an
 * abort or an output cap kills the whole group (SIGTERM, then SIGKILL after
 * a grace period), so grandchildren die with it.
 *
 * The promise normally settles on the child's `close` event (it has exited
 * and its stdio is shut), so no output is lost. But `close` needs every
 * holder of the pipes to let go, and a grandchild that left the group
 * (`setsid`, a daemon) may hold them forever, out of the group kill's
 * reach. So once the child has exited, `close` is awaited for at most
 * `drainGraceMs`; then the group is SIGKILLed and `close` awaited one more
 * grace; then the pipes are destroyed and the call settles with what was
 * read, marked `truncated` (the output may be incomplete). After a kill the
 * same bound runs from the SIGKILL, even if no `exit` ever comes, so the
 * call always settles within `timeoutMs + killGraceMs + 2 × drainGraceMs`.
 */
export function spawnBounded(options: SpawnBoundedOptions): Promise<BoundedResult> {
  return new Promise((resolve) => {
    const drainGraceMs = options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS;
    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: true,
      windowsHide: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const stdout = new BoundedSink(options.maxOutputBytes);
    const stderr = new BoundedSink(options.maxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let spawnError: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let killing = false;
    let settled = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

    const finish = (code: number | null, signal: NodeJS.Signals | null, cut: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (killTimer !== undefined) clearTimeout(killTimer);
      if (drainTimer !== undefined) clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // The leader is gone; nothing it left behind in its group may outlive the call.
      signalGroup(child.pid, 'SIGKILL');
      // Whoever still holds the pipes (a grandchild out of the group's reach) writes into nothing from here on.
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      const result: BoundedResult = {
        exitCode: code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: cut || stdout.truncated || stderr.truncated,
        aborted,
      };
      resolve(spawnError === undefined ? result : { ...result, spawnError });
    };
    /**
     * Wait a drain grace for `close`, then SIGKILL the group and wait one
     * more; then cut the pipes. The cut waits for one turn of the event loop
     * (`setImmediate` runs after the poll phase) so bytes already sitting in
     * the pipes are read even when the loop was busy past the timers.
     */
    const boundClose = (): void => {
      if (drainTimer !== undefined || settled) return;
      drainTimer = setTimeout(() => {
        signalGroup(child.pid, 'SIGKILL');
        drainTimer = setTimeout(() => setImmediate(() => finish(exited?.code ?? null, exited?.signal ?? null, true)), drainGraceMs);
      }, drainGraceMs);
    };

    const killGroup = (): void => {
      if (killing) return;
      killing = true;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        signalGroup(child.pid, 'SIGKILL');
        // A child that cannot even be reaped must not hold the call past the bound.
        boundClose();
      }, options.killGraceMs);
      killTimer.unref();
    };
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);

    child.stdout?.on('data', (chunk: Buffer) => {
      if (!stdout.push(chunk)) killGroup();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (!stderr.push(chunk)) killGroup();
    });
    // After a cut, a destroyed pipe may still report an error; the result is already out.
    child.stdout?.on('error', () => undefined);
    child.stderr?.on('error', () => undefined);
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError ??= error.code ?? 'spawn failed';
      if (child.pid !== undefined) killGroup();
    });
    if (options.stdin !== undefined && child.stdin !== null) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.stdin);
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted === true) onAbort();

    child.on('exit', (code, signal) => {
      exited = { code, signal };
      // The child finished in time: what remains is only draining its pipes, bounded below.
      if (!killing) clearTimeout(deadline);
      boundClose();
    });
    child.on('close', (code, signal) => finish(code, signal, false));
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Collects up to `cap` bytes; reports when more arrived. */
class BoundedSink {
  readonly #cap: number;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  truncated = false;
  constructor(cap: number) {
    this.#cap = cap;
  }
  push(chunk: Buffer): boolean {
    const room = this.#cap - this.#size;
    if (chunk.byteLength > room) {
      if (room > 0) this.#chunks.push(chunk.subarray(0, room));
      this.#size = this.#cap;
      this.truncated = true;
      return false;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
    return true;
  }
  text(): string {
    return Buffer.concat(this.#chunks, this.#size).toString('utf8');
  }
}
