import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hostUnavailable } from '../errors/host-denial.js';
import { realpathOrSelf, workTreeCodePlaces } from './find-repository-code.js';
import { fromWorkspace, moveAside } from './move-aside.js';

/** What a changed entry of the work tree's git code becomes: `<name>-held-by-toolgate`, beside it. */
const HELD_SUFFIX = '-held-by-toolgate';
/** Past these the code is not kept: the call is refused rather than run with nothing to put back. */
const MAX_ENTRIES = 1000;
const MAX_BYTES = 8 * 1024 * 1024;

/** One entry as it stood: a regular file's bytes and mode, a link's text, or anything else by its kind alone. */
type Entry = { readonly kind: 'file'; readonly bytes: Buffer; readonly mode: number } | { readonly kind: 'link'; readonly target: string } | { readonly kind: 'other' };

/** The work tree's git code as it stood before a call: the places, and every entry in them, by absolute path. */
export interface KeptWorkTreeCode {
  readonly places: readonly string[];
  readonly entries: ReadonlyMap<string, Entry>;
}

/**
 * The workspace's protected files as they are now, absolute (`.env`, `toolgate.config.json`, `.mcp.json`, the
 * files the configuration starts as servers): kept with the code. Throws `UnkeptWorkTreeCodeError` when not known.
 */
export type ProtectedFiles = () => readonly string[];

/** What was done after the call, each as a path from the workspace. */
export interface WorkTreeCodeCheck {
  readonly moved: readonly { readonly from: string; readonly to: string }[];
  readonly restored: readonly string[];
  readonly failed: readonly string[];
}

/** Why a call is not run: the work tree's code is too large to keep. */
export class UnkeptWorkTreeCodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnkeptWorkTreeCodeError';
  }
}

/**
 * The work tree's code (`workTreeCodePlaces`: the hooks folder
 * `core.hooksPath` names, the configuration files an include names, the
 * files a client's settings run), each entry kept whole before a call that
 * runs outside the sandbox: an upstream server's git (`git_checkout` of a
 * branch the model committed) writes them as it writes any file of the work
 * tree, and the user's git, or the client, outside toolgate, runs what is
 * there at the next commit, `git status` or session. Held where they really
 * are (`.husky` a link to `tools/hooks`). So are the workspace's protected
 * files (`protectedFiles`), which the sandbox masks from commands but not
 * from such a server: a switch wrote `toolgate.config.json`, and the next
 * start ran the server it named. Throws `UnkeptWorkTreeCodeError` past the
 * bounds.
 */
export function keepWorkTreeCode(workspace: string, protectedFiles: ProtectedFiles = () => []): KeptWorkTreeCode {
  const places = [...new Set(workTreeCodePlaces(workspace).map(realpathOrSelf)), ...protectedFiles()];
  return { places, entries: readEntries(places) };
}

/**
 * After the call: every entry it changed or made is moved aside, and every
 * entry it changed or removed is written back as it stood, so the user's git
 * runs what it ran before. Never throws; what could not be put right is named.
 */
export function restoreWorkTreeCode(workspace: string, kept: KeptWorkTreeCode, protectedFiles: ProtectedFiles = () => []): WorkTreeCodeCheck {
  let now: ReadonlyMap<string, Entry>;
  try {
    // A protected file the call made is among the places now, with nothing kept for it: moved aside.
    now = readEntries([...new Set([...kept.places, ...protectedFiles()])]);
  } catch {
    return { moved: [], restored: [], failed: kept.places.map((place) => fromWorkspace(workspace, place)) };
  }
  const moved: { from: string; to: string }[] = [];
  const restored: string[] = [];
  const failed: string[] = [];
  // Deepest first, so an entry is moved before the folder it is in.
  for (const [entry, after] of [...now].sort(([a], [b]) => b.length - a.length)) {
    const before = kept.entries.get(entry);
    if (before !== undefined && sameEntry(before, after)) continue;
    if (before?.kind === 'other' && after.kind === 'other') continue;
    const done = moveAside(entry, `${path.basename(entry)}${HELD_SUFFIX}`, workspace);
    if (done === 'failed') failed.push(fromWorkspace(workspace, entry));
    else if (done !== 'gone') moved.push({ from: fromWorkspace(workspace, entry), to: fromWorkspace(workspace, done.to) });
  }
  // Shallowest first, so a folder is there before what it held.
  for (const [entry, before] of [...kept.entries].sort(([a], [b]) => a.length - b.length)) {
    if (before.kind === 'other' || lstatSync(entry, { throwIfNoEntry: false }) !== undefined) continue;
    try {
      mkdirSync(path.dirname(entry), { recursive: true });
      if (before.kind === 'link') symlinkSync(before.target, entry);
      else writeFileSync(entry, before.bytes, { mode: before.mode, flag: 'wx' });
      restored.push(fromWorkspace(workspace, entry));
    } catch {
      failed.push(fromWorkspace(workspace, entry));
    }
  }
  return { moved, restored, failed };
}

/**
 * Runs `call` (an upstream server's, outside the sandbox) with the work
 * tree's git code kept (`keepWorkTreeCode`), and fails it, typed, when it
 * changed any of it: what it wrote is moved aside and what stood there put
 * back. A code too large to keep, or places git cannot name in time, refuse
 * the call before it runs.
 */
export async function keepingWorkTreeCode<T>(workspace: string, tool: string | undefined, call: () => Promise<T>, protectedFiles: ProtectedFiles = () => []): Promise<T> {
  let kept: KeptWorkTreeCode;
  try {
    kept = keepWorkTreeCode(workspace, protectedFiles);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = error instanceof UnkeptWorkTreeCodeError ? error.message : `git did not name them (${typeof code === 'string' ? code : 'failed'})`;
    throw hostUnavailable(tool, 'mcp', `toolgate could not keep the repository's hooks folder, included configuration and protected files of the work tree as they are (${why}), so the call was not run`);
  }
  let check: WorkTreeCodeCheck;
  let value: T;
  try {
    value = await call();
  } finally {
    // Whatever became of the call: a server that failed half-way may still have written.
    check = restoreWorkTreeCode(workspace, kept, protectedFiles);
  }
  const changed = [...check.moved.map((entry) => `${entry.from} moved to ${entry.to}`), ...check.restored.map((entry) => `${entry} put back`), ...check.failed.map((entry) => `${entry} could not be put right`)];
  if (changed.length > 0) {
    throw hostUnavailable(tool, 'mcp', `the call ran, and it changed the repository's hooks folder, included configuration or protected files in the work tree, which the user's git, an agent or the next start runs outside toolgate: ${changed.join('; ')}`);
  }
  return value;
}

/** Every entry under the places, folders walked, links never followed, FIFOs and devices never opened. */
function readEntries(places: readonly string[]): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const visit = (entry: string): void => {
    const stat = lstatSync(entry, { throwIfNoEntry: false });
    if (stat === undefined) return;
    if (entries.size >= MAX_ENTRIES) throw new UnkeptWorkTreeCodeError(`the repository's hooks folder, included configuration and the protected files in the work tree hold more than ${MAX_ENTRIES} entries`);
    if (stat.isDirectory()) {
      entries.set(entry, { kind: 'other' });
      for (const name of readdirSync(entry)) visit(path.join(entry, name));
    } else if (stat.isSymbolicLink()) {
      entries.set(entry, { kind: 'link', target: readlinkSync(entry) });
    } else if (stat.isFile()) {
      bytes += stat.size;
      if (bytes > MAX_BYTES) throw new UnkeptWorkTreeCodeError(`the repository's hooks folder, included configuration and the protected files in the work tree hold more than ${MAX_BYTES} bytes`);
      entries.set(entry, { kind: 'file', bytes: readRegular(entry), mode: stat.mode & 0o7777 });
    } else {
      entries.set(entry, { kind: 'other' });
    }
  };
  for (const place of places) visit(place);
  return entries;
}

/** A regular file's bytes, opened without following a link or waiting on a FIFO put in its place since it was looked at. */
function readRegular(entry: string): Buffer {
  const fd = openSync(entry, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new UnkeptWorkTreeCodeError(`${path.basename(entry)} of the repository's code in the work tree changed as it was read`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function sameEntry(a: Entry, b: Entry): boolean {
  if (a.kind === 'file' && b.kind === 'file') return a.mode === b.mode && a.bytes.equals(b.bytes);
  if (a.kind === 'link' && b.kind === 'link') return a.target === b.target;
  return a.kind === 'other' && b.kind === 'other';
}
