import { spawn } from 'node:child_process';
import type { ProcessResult } from '../../core/index.js';

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
  readonly signal?: AbortSignal | undefined;
}

/** A process result before the sandbox is known, plus why it ended. */
export interface BoundedResult extends Omit<ProcessResult, 'sandbox'> {
  readonly aborted: boolean;
  /** The spawn itself failed (`ENOENT`, `EACCES`, …). */
  readonly spawnError?: string;
}

/**
 * Run one child with `shell: false` in its own process group. A timeout, an
 * abort or an output cap kills the whole group (SIGTERM, then SIGKILL after
 * a grace period), so grandchildren die with it. The promise settles only on
 * the child's `close` event: the process has exited and its stdio is shut.
 */
export function spawnBounded(options: SpawnBoundedOptions): Promise<BoundedResult> {
  return new Promise((resolve) => {
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
    let killing = false;

    const killGroup = (): void => {
      if (killing) return;
      killing = true;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), options.killGraceMs);
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

    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', onAbort);
      // The leader is gone; nothing it left behind in its group may outlive the call.
      signalGroup(child.pid, 'SIGKILL');
      if (killTimer !== undefined) clearTimeout(killTimer);
      const result: BoundedResult = {
        exitCode: code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
        aborted,
      };
      resolve(spawnError === undefined ? result : { ...result, spawnError });
    });
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
