import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

export interface RunningCli {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the first JSON document the CLI prints on stdout. */
  readonly ready: Promise<Record<string, unknown>>;
  stderr(): string;
  stop(): Promise<void>;
}

/** Start the built CLI as a real child process in `cwd`. */
export function startCli(args: readonly string[], cwd: string): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
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
  return {
    child,
    ready,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Run the built CLI to completion. */
export function runCli(args: readonly string[], cwd: string, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
