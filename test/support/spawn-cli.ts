import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Stream } from 'node:stream';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'bin.js');

export interface RunningCli {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the first JSON document the CLI prints on stdout. */
  readonly ready: Promise<Record<string, unknown>>;
  stderr(): string;
  stop(): Promise<void>;
}

/** A user to run the CLI as (the tests run as root; a gateway is most often run by a user). */
export interface CliUser {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Start the built CLI as a real child process in `cwd`; `env` adds to (or, undefined, removes from) the test's
 * environment; `inherit` lists what it holds after stdin, stdout and stderr, descriptor 3 on (as a careless parent
 * leaves it open); `user`, whom it runs as.
 */
export function startCli(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}, inherit: readonly (Stream | 'ignore')[] = [], user?: CliUser): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['pipe', 'pipe', 'pipe', ...inherit], ...user }) as ChildProcessWithoutNullStreams;
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      try {
        resolve(JSON.parse(out) as Record<string, unknown>);
      } catch {
        // Not a whole document yet.
      }
    });
    child.once('exit', (code) => reject(new Error(`toolgate exited with ${String(code)}: ${err}`)));
  });
  // A test that reads stderr instead never awaits `ready`: an exit is then its own failure, not an unhandled rejection.
  ready.catch(() => undefined);
  return {
    child,
    ready,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) => {
        // Ended already, by its own exit or by a signal (a second stop of the same process).
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Run the built CLI to completion. */
export function runCli(args: readonly string[], cwd: string, input?: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    // A test that times out (or fails) while the CLI still runs would leave it running past the whole suite:
    // a `serve` keeps its port, its journal and a core.
    stopWhenTestEnds(child);
    child.stdin.end(input);
  });
}

/** Kill `child` once the running test has ended, if it has not exited by then; outside a test, nothing. */
function stopWhenTestEnds(child: ReturnType<typeof spawn>): void {
  try {
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
  } catch {
    // Called from a hook rather than a test: the hook's own cleanup owns the process.
  }
}

/** Transport options that send the bearer token of a gateway `serve --http --json` started, read from the file its start-up document names. */
export function gatewayAuth(started: Record<string, unknown>): { requestInit: RequestInit } {
  const token = readFileSync(String(started.tokenFile), 'utf8').trim();
  return { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
}
