import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { MAX_RUNNER_FILES, type WorkspaceMembers } from '../../core/internal.js';
import { isRecord } from '../../core/policy/import-claude-settings.js';
import { isInside, resolveInWorkspace, type FsJail } from './fs-jail.js';
import { readRegularFile } from './read-regular-file.js';
import { walkRealPath, type WalkBudget } from './walk-real-path.js';
import { compileWildmatch, type MatchBudget } from './wildmatch.js';
import { yamlParser } from './yaml-parser.js';

/** The largest file naming a workspace's members that is read: a `package.json` of a megabyte names none worth a look. */
const MAX_MEMBER_LIST_BYTES = 1024 * 1024;

/**
 * The members a file naming them names (`ResolveTargetRequest.workspaces`):
 * a `package.json`'s `workspaces` (a list, or `{ packages: [...] }`), or a
 * `pnpm-workspace.yaml`'s `packages` list. Each glob is matched against the
 * folders below the folder the file is spelled in, as the runner matches it
 * from the folder it runs in: the folders it matched are the members (with
 * or without a `package.json`: one planted there later is a change), and
 * the folders whose names a wildcard was matched against are listed, so a
 * member planted there changes a listing. Every member is a superset of what
 * the runner takes: a negated glob (`!packages/old`) is not subtracted, a
 * hidden folder is matched. Jailed: a folder outside the workspace or
 * protected is never listed, and a glob that leaves the workspace, a
 * pattern this does not read (braces), more than `MAX_RUNNER_FILES`
 * folders or `MATCH_STEPS` of matching leaves the rest unnamed (`cut`).
 * A file that does not exist names none: the runner selects none.
 */
export function workspaceMembers(jail: FsJail, spelled: string, tool: string, budget: WalkBudget): WorkspaceMembers {
  const absolute = path.isAbsolute(spelled) ? spelled : `${jail.workspace}${path.sep}${spelled}`;
  const file = walkRealPath(jail.workspace, spelled.split(/[\\/]/).includes('..') ? absolute : resolveInWorkspace(jail.workspace, spelled), tool, budget);
  if (file.missing.length > 0) return { members: [], listed: [] };
  if (!openAt(jail, file.absolute) || !file.stats.isFile()) return CUT;
  const patterns = memberPatterns(path.basename(spelled), readSmall(file.absolute));
  if (patterns === undefined) return CUT;
  const folder = walkRealPath(jail.workspace, path.dirname(absolute), tool, budget);
  if (folder.missing.length > 0 || !openAt(jail, folder.absolute)) return CUT;
  return expandPatterns(jail, folder.absolute, patterns);
}

const CUT: WorkspaceMembers = { members: [], listed: [], cut: true };

function openAt(jail: FsJail, absolute: string): boolean {
  return isInside(jail.workspace, absolute) && jail.classify(absolute) === 'open';
}

/**
 * The file's text, or undefined past `MAX_MEMBER_LIST_BYTES` or when it is
 * no longer a regular file: a FIFO put in its place since it was walked
 * would hold the host's one thread on a blocking open.
 */
function readSmall(absolute: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(absolute, MAX_MEMBER_LIST_BYTES + 1);
  } catch {
    return undefined;
  }
  return bytes.length > MAX_MEMBER_LIST_BYTES ? undefined : bytes.toString('utf8');
}

/**
 * The globs a file names members by; [] when it names none; undefined when
 * it cannot be read. npm reads a `package.json` past a byte-order mark, so
 * it is read the same; one JSON cannot parse is not read (no parser is
 * known to be npm's to the letter).
 */
function memberPatterns(name: string, text: string | undefined): readonly string[] | undefined {
  if (text === undefined) return undefined;
  if (name !== 'package.json') return yamlPackages(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
  const workspaces = isRecord(parsed) ? parsed.workspaces : undefined;
  const list = isRecord(workspaces) ? workspaces.packages : workspaces;
  if (list === undefined) return [];
  return Array.isArray(list) && list.every((entry) => typeof entry === 'string') ? list : undefined;
}

/** pnpm's members where its file names none: the folder and every folder below it. */
const EVERY_FOLDER: readonly string[] = ['**'];

/**
 * The `packages:` list of a `pnpm-workspace.yaml`, as pnpm's YAML reader
 * reads it: a merge key (`<<: *base`) gives its mapping's keys. A file with
 * no list (empty, or settings only) makes every folder below it a member,
 * as pnpm takes it (`**`). Undefined when it is no YAML or the list holds
 * anything but strings.
 */
function yamlPackages(text: string): readonly string[] | undefined {
  let parsed: unknown;
  try {
    parsed = yamlParser().parse(text, { merge: true });
  } catch {
    return undefined;
  }
  if (parsed === null || parsed === undefined) return EVERY_FOLDER;
  if (!isRecord(parsed)) return undefined;
  const list = parsed.packages;
  if (list === undefined || list === null) return EVERY_FOLDER;
  return Array.isArray(list) && list.every((entry) => typeof entry === 'string') ? list : undefined;
}

/**
 * What matching the globs' names may cost, in steps of the linear matcher
 * (`compileWildmatch`): a repository's `package.json` chooses both the
 * globs and the folder names (`*a*a*a*a*a*a*a*a*a*a*b` against a name of
 * forty `a`s held a backtracking regular expression 35 s). Past it the
 * rest of the members are not named (`cut`).
 */
const MATCH_STEPS = 1_000_000;

/**
 * The folders the globs match below `base` (its real path), and the folders
 * listed to match them. A file of a megabyte holds hundreds of thousands of
 * globs: each spelling is matched once, each folder listed once, and the
 * matching stops when its steps are spent.
 */
function expandPatterns(jail: FsJail, base: string, patterns: readonly string[]): WorkspaceMembers {
  const members = new Set<string>();
  const listed = new Set<string>();
  const listings = new Map<string, readonly string[]>();
  const matched = new Set<string>();
  const budget: MatchBudget = { remaining: MATCH_STEPS };
  let cut = false;
  const full = (): boolean => members.size + listed.size >= MAX_RUNNER_FILES;
  const list = (folder: string): readonly string[] => {
    if (full()) return ((cut = true), []);
    const known = listings.get(folder);
    if (known !== undefined) return known;
    const absolute = path.join(base, folder);
    const open = openAt(jail, realOf(absolute));
    if (open) listed.add(folder === '' ? '.' : folder);
    else cut = true;
    const children = open ? subfolders(absolute).map((name) => (folder === '' ? name : `${folder}/${name}`)) : [];
    listings.set(folder, children);
    return children;
  };
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) continue;
    const segments = pattern.split('/').filter((segment) => segment !== '' && segment !== '.');
    if (path.isAbsolute(pattern) || segments.some((segment) => segment === '..' || /[{}()]/.test(segment))) {
      cut = true;
      continue;
    }
    const spelling = segments.join('/');
    if (matched.has(spelling)) continue;
    matched.add(spelling);
    let folders = [''];
    for (const segment of segments) {
      if (segment === '**') folders = folders.flatMap((folder) => [folder, ...below(folder, list, full)]);
      else if (!/[*?[\]]/.test(segment)) folders = folders.map((folder) => (folder === '' ? segment : `${folder}/${segment}`));
      else {
        const matches = compileWildmatch(segment);
        folders = folders.flatMap((folder) => list(folder).filter((child) => matches(path.posix.basename(child), budget)));
      }
    }
    for (const folder of folders) {
      const member = folder === '' ? '.' : folder;
      if (members.has(member)) continue;
      // A member outside the workspace or protected (`**` reaches the journal's folder) is not bound: the rest are.
      if (full() || !openAt(jail, realOf(path.join(base, folder)))) cut = true;
      else members.add(member);
    }
    if (budget.remaining <= 0) {
      cut = true;
      break;
    }
  }
  return { members: [...members], listed: [...listed], ...(cut ? { cut: true } : {}) };
}

/** Every folder below `folder`, each listed, until the bound. */
function below(folder: string, list: (folder: string) => readonly string[], full: () => boolean): string[] {
  const found: string[] = [];
  const queue = [...list(folder)];
  for (let at = 0; at < queue.length && !full(); at += 1) {
    const next = queue[at] as string;
    found.push(next);
    if (path.posix.basename(next) !== 'node_modules') queue.push(...list(next));
  }
  return found;
}

/** The folders (and links to folders) in a folder. */
function subfolders(absolute: string): string[] {
  let entries;
  try {
    entries = readdirSync(absolute, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((entry) => entry.isDirectory() || (entry.isSymbolicLink() && isFolder(path.join(absolute, entry.name)))).map((entry) => entry.name);
}

function isFolder(absolute: string): boolean {
  try {
    return statSync(absolute).isDirectory();
  } catch {
    return false;
  }
}

function realOf(absolute: string): string {
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}
