import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResolvedConfig } from '../config/config-types.js';

/** Where a running `serve` says where its console is. */
export interface ConsoleLocation {
  /** The console URL, with its one-time token. */
  readonly url: string;
  /** The serving process. */
  readonly pid: number;
  readonly startedAt: string;
}

/**
 * `.toolgate/console.json` in the workspace: readable by the user alone
 * (it holds the token) and, like the rest of `.toolgate`, refused to every
 * tool. It lets `toolgate console` find the console of a gateway an MCP
 * client started over stdio, whose stderr the user rarely sees.
 */
export function consoleLocatorPath(config: ResolvedConfig): string {
  return join(config.workspace, '.toolgate', 'console.json');
}

/** Written atomically with mode 0600, so a reader never sees half a file or a wider mode. */
export function publishConsole(config: ResolvedConfig, url: string): void {
  const file = consoleLocatorPath(config);
  mkdirSync(join(config.workspace, '.toolgate'), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  const location: ConsoleLocation = { url, pid: process.pid, startedAt: new Date().toISOString() };
  // A leftover of an earlier process with this pid goes first; `wx` then never writes through whatever is there.
  rmSync(temporary, { force: true });
  writeFileSync(temporary, `${JSON.stringify(location)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** Removed on shutdown, but only while it is still this process's: a newer `serve` may have replaced it. */
export function withdrawConsole(config: ResolvedConfig): void {
  const found = readConsoleLocation(config);
  if (found?.pid === process.pid) rmSync(consoleLocatorPath(config), { force: true });
}

/** The console of a live `serve` for this configuration, or undefined (none written, unreadable, or its process gone). */
export function findRunningConsole(config: ResolvedConfig): ConsoleLocation | undefined {
  const found = readConsoleLocation(config);
  return found !== undefined && processAlive(found.pid) ? found : undefined;
}

function readConsoleLocation(config: ResolvedConfig): ConsoleLocation | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(consoleLocatorPath(config), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { url, pid, startedAt } = parsed as Record<string, unknown>;
  if (typeof url !== 'string' || !/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+\//.test(url) || typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  return { url, pid, startedAt: typeof startedAt === 'string' ? startedAt : '' };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's. Only "no such process" means gone.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
