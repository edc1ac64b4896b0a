import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ResolvedConfig } from '../config/config-types.js';
import { writeFileAtomicSync } from '../../node/fs/write-file-atomic.js';
import { isProcessAlive } from '../../node/process/is-process-alive.js';
import { stateRecord, type StateRecord } from './state-record.js';

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

/**
 * This process's own locator and `console.json`, each written atomically
 * with mode 0600 and vouched for in `home`'s record: a repository can ship
 * locators naming a live process and a page of its author's.
 */
export function publishConsole(config: ResolvedConfig, url: string, home = homedir()): void {
  mkdirSync(stateDirectory(config), { recursive: true, mode: 0o700 });
  const record = locatorRecord(config, home);
  const text = `${JSON.stringify({ url, pid: process.pid, startedAt: new Date().toISOString() } satisfies ConsoleLocation)}\n`;
  for (const file of [ownConsoleLocatorPath(config, process.pid), consoleLocatorPath(config)]) {
    writeFileAtomicSync(file, text, { mode: 0o600 });
    record.remember(file, text);
  }
}

/** Removed on shutdown: this process's own locator, and `console.json` only while it is still this process's (a newer `serve` may have replaced it). */
export function withdrawConsole(config: ResolvedConfig, home = homedir()): void {
  const record = locatorRecord(config, home);
  removeLocator(ownConsoleLocatorPath(config, process.pid), record);
  if (readConsoleLocation(consoleLocatorPath(config), record)?.location.pid === process.pid) removeLocator(consoleLocatorPath(config), record);
}

/**
 * The consoles of every live `serve` for this configuration, newest first.
 * A locator whose process is gone (a gateway killed before it could remove
 * it), `console.json` included, is removed; an unreadable one, one naming another pid than its file
 * or anything but a loopback URL, and a live one this user's toolgate did not write (`home`'s record), is skipped.
 */
export function findRunningConsoles(config: ResolvedConfig, home = homedir()): ConsoleLocation[] {
  const record = locatorRecord(config, home);
  const found = new Map<number, ConsoleLocation>();
  for (const name of locatorNames(config)) {
    const pid = Number(OWN_LOCATOR.exec(name)?.[1]);
    const file = join(stateDirectory(config), name);
    const read = readConsoleLocation(file, record);
    if (read?.location.pid === pid) consider(found, file, read, record);
  }
  // `console.json` alone: written by a gateway that keeps no locator of its own.
  const newest = readConsoleLocation(consoleLocatorPath(config), record);
  if (newest !== undefined && !found.has(newest.location.pid)) consider(found, consoleLocatorPath(config), newest, record);
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

function locatorRecord(config: ResolvedConfig, home: string): StateRecord {
  return stateRecord(config, home, 'console-locators.json');
}

function removeLocator(file: string, record: StateRecord): void {
  rmSync(file, { force: true });
  record.forget(file);
}

/** A live process's locator is listed only when this user's toolgate wrote it; a gone one's is removed, whoever wrote it. */
function consider(found: Map<number, ConsoleLocation>, file: string, read: ReadLocation, record: StateRecord): void {
  if (!isProcessAlive(read.location.pid)) removeLocator(file, record);
  else if (read.vouched) found.set(read.location.pid, read.location);
}

interface ReadLocation {
  readonly location: ConsoleLocation;
  /** Whether this user's toolgate wrote exactly this text there. */
  readonly vouched: boolean;
}

function readConsoleLocation(file: string, record: StateRecord): ReadLocation | undefined {
  let text: string;
  let parsed: unknown;
  try {
    text = readFileSync(file, 'utf8');
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { url, pid, startedAt } = parsed as Record<string, unknown>;
  if (typeof url !== 'string' || !/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+\//.test(url) || typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { location: { url, pid, startedAt: typeof startedAt === 'string' ? startedAt : '' }, vouched: record.vouches(file, text) };
}

