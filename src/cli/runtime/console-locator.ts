import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ResolvedConfig } from '../config/config-types.js';
import { writeFileAtomicSync } from '../../node/fs/write-file-atomic.js';
import { isProcessAlive } from '../../node/process/is-process-alive.js';

/** Where a running `serve` says where its console is. */
export interface ConsoleLocation {
  /** The console URL, with its one-time token. */
  readonly url: string;
  /** The serving process. */
  readonly pid: number;
  readonly startedAt: string;
}

/** A gateway's own locator: `console-<pid>.json`. */
const OWN_LOCATOR = /^console-([1-9]\d*)\.json$/;

/**
 * `.toolgate/console.json` in the workspace: the console of the newest
 * gateway for this configuration. Readable by the user alone (it holds the
 * token) and, like the rest of `.toolgate`, refused to every tool. It lets
 * `toolgate console` find the console of a gateway an MCP client started
 * over stdio, whose stderr the user rarely sees.
 */
export function consoleLocatorPath(config: ResolvedConfig): string {
  return join(stateDirectory(config), 'console.json');
}

/**
 * `.toolgate/console-<pid>.json`: each gateway's own locator. Several
 * gateways may serve one configuration (an MCP client's and an inspector's),
 * and one that stops removes only its own, so the others stay findable.
 */
function ownConsoleLocatorPath(config: ResolvedConfig, pid: number): string {
  return join(stateDirectory(config), `console-${String(pid)}.json`);
}

/** This process's own locator and `console.json`, each written atomically with mode 0600. */
export function publishConsole(config: ResolvedConfig, url: string): void {
  mkdirSync(stateDirectory(config), { recursive: true, mode: 0o700 });
  const text = `${JSON.stringify({ url, pid: process.pid, startedAt: new Date().toISOString() } satisfies ConsoleLocation)}\n`;
  writeFileAtomicSync(ownConsoleLocatorPath(config, process.pid), text, { mode: 0o600 });
  writeFileAtomicSync(consoleLocatorPath(config), text, { mode: 0o600 });
}

/** Removed on shutdown: this process's own locator, and `console.json` only while it is still this process's (a newer `serve` may have replaced it). */
export function withdrawConsole(config: ResolvedConfig): void {
  rmSync(ownConsoleLocatorPath(config, process.pid), { force: true });
  if (readConsoleLocation(consoleLocatorPath(config))?.pid === process.pid) rmSync(consoleLocatorPath(config), { force: true });
}

/**
 * The consoles of every live `serve` for this configuration, newest first.
 * A locator whose process is gone (a gateway killed before it could remove
 * it), `console.json` included, is removed; an unreadable one, one naming another pid than its file
 * or anything but a loopback URL is skipped.
 */
export function findRunningConsoles(config: ResolvedConfig): ConsoleLocation[] {
  const found = new Map<number, ConsoleLocation>();
  for (const name of locatorNames(config)) {
    const pid = Number(OWN_LOCATOR.exec(name)?.[1]);
    const file = join(stateDirectory(config), name);
    const location = readConsoleLocation(file);
    if (location?.pid !== pid) continue;
    if (isProcessAlive(pid)) found.set(pid, location);
    else rmSync(file, { force: true });
  }
  // `console.json` alone: written by a gateway that keeps no locator of its own.
  const newest = readConsoleLocation(consoleLocatorPath(config));
  if (newest !== undefined && !found.has(newest.pid)) {
    if (isProcessAlive(newest.pid)) found.set(newest.pid, newest);
    else rmSync(consoleLocatorPath(config), { force: true });
  }
  return [...found.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.pid - a.pid);
}

function stateDirectory(config: ResolvedConfig): string {
  return join(config.workspace, '.toolgate');
}

function locatorNames(config: ResolvedConfig): string[] {
  try {
    return readdirSync(stateDirectory(config)).filter((name) => OWN_LOCATOR.test(name));
  } catch {
    return [];
  }
}

function readConsoleLocation(file: string): ConsoleLocation | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { url, pid, startedAt } = parsed as Record<string, unknown>;
  if (typeof url !== 'string' || !/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+\//.test(url) || typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { url, pid, startedAt: typeof startedAt === 'string' ? startedAt : '' };
}

