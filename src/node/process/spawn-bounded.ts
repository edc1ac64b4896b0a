import type { Writable } from 'node:stream';
import type { ProcessResult } from '../../core/internal.js';
import { BoundedSink } from './bounded-sink.js';
import { spawnCovered } from './inherited-descriptors.js';
import { startKillEscalation } from './kill-escalation.js';

export interface SpawnBoundedOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin?: string | undefined;
  /** Bytes the child reads on descriptor 3, then end of file: bwrap's seccomp program (`--seccomp 3`). */
  readonly fd3?: Uint8Array | undefined;
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
 * Run one child with `shell: false` in its own process group, holding no
 * descriptor of the host's but its stdio (see `spawnCovered`). A timeout, an
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
    const child = spawnCovered(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: true,
      windowsHide: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', ...(options.fd3 === undefined ? [] : ['pipe' as const])],
    });
    const fd3 = child.stdio[3] as Writable | null | undefined;
    const stdout = new BoundedSink(options.maxOutputBytes);
    const stderr = new BoundedSink(options.maxOutputBytes);
    let aborted = false;
    let spawnError: string | undefined;
    let settled = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

    const finish = (code: number | null, signal: NodeJS.Signals | null, cut: boolean): void => {
      if (settled) return;
      settled = true;
      escalation.stop();
      options.signal?.removeEventListener('abort', onAbort);
      // The leader is gone; nothing it left behind in its group may outlive the call.
      signalGroup(child.pid, 'SIGKILL');
      // Whoever still holds the pipes (a grandchild out of the group's reach) writes into nothing from here on.
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      fd3?.destroy();
      const result: BoundedResult = {
        exitCode: code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut: escalation.timedOut,
        truncated: cut || stdout.truncated || stderr.truncated,
        aborted,
      };
      resolve(spawnError === undefined ? result : { ...result, spawnError });
    };
    const escalation = startKillEscalation({
      signalGroup: (signal) => signalGroup(child.pid, signal),
      timeoutMs: options.timeoutMs,
      killGraceMs: options.killGraceMs,
      drainGraceMs: options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS,
      onCut: () => finish(exited?.code ?? null, exited?.signal ?? null, true),
    });
    const onAbort = (): void => {
      aborted = true;
      escalation.kill();
    };

    child.stdout?.on('data', (chunk: Buffer) => {
      if (!stdout.push(chunk)) escalation.kill();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (!stderr.push(chunk)) escalation.kill();
    });
    // After a cut, a destroyed pipe may still report an error; the result is already out.
    child.stdout?.on('error', () => undefined);
    child.stderr?.on('error', () => undefined);
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError ??= error.code ?? 'spawn failed';
      if (child.pid !== undefined) escalation.kill();
    });
    feed(child.stdin, options.stdin);
    feed(fd3, options.fd3);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted === true) onAbort();

    child.on('exit', (code, signal) => {
      exited = { code, signal };
      escalation.exited();
    });
    child.on('close', (code, signal) => finish(code, signal, false));
  });
}

/** Write `input` to one of the child's descriptors and close it; a child that exits without reading it (bwrap refusing its arguments) must not crash the host with EPIPE. */
function feed(stream: Writable | null | undefined, input: string | Uint8Array | undefined): void {
  if (input === undefined || stream == null) return;
  stream.on('error', () => undefined);
  stream.end(input);
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
