import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { MovedProtectedPath } from '../../core/internal.js';
import { isInside, type FsJail } from '../fs/fs-jail.js';
import { masksWhole, type FoundProtectedFiles } from './find-protected-files.js';
import { fromWorkspace, moveAside } from './move-aside.js';

/** What a protected entry a command made becomes: `<name>-held-by-toolgate`, beside it. */
const MOVED_ASIDE_SUFFIX = '-held-by-toolgate';
/** A name this guard gave (the plain one, or with its random suffix): moved aside already, never moved again. */
const MOVED_ASIDE_NAME = /-held-by-toolgate(?:-[0-9a-f]{12})?$/;
/** How many levels of folders are read below the top when the workspace was not walked whole, the folder at the top the first: `.amazonq/cli-agents/team/shared/x.json` is read. */
const CLIENT_FOLDER_DEPTH = 4;
/** How many entries of the folders below those at the top it reads in all: past it, it stops, and the call fails saying the workspace was not walked whole. */
const CLIENT_FOLDER_ENTRIES = 4096;

/** What the check after a command found: the entries moved aside, and why the call fails, if it does. */
export interface ProtectedCheck {
  readonly moved: readonly MovedProtectedPath[];
  /** Undefined when every entry the command made was moved aside. */
  readonly problem: string | undefined;
}

export interface ProtectedCreationGuard {
  /**
   * Before a command, with the walk that found what its sandbox masks:
   * the protected entries taken as there before it. Read from that walk
   * only when no other command is under way; while one is, what the
   * last such walk found stands, so a command started beside another
   * cannot take what the other just made for the user's.
   */
  enter(walked: FoundProtectedFiles): ReadonlySet<string>;
  /** After it (always, once `enter` was called), with the walk after it: see `protectedMovedAside`. */
  leave(before: ReadonlySet<string>, after: FoundProtectedFiles | undefined): ProtectedCheck;
}

export function createProtectedCreationGuard(jail: FsJail, isReadable: (absolute: string) => boolean = () => false): ProtectedCreationGuard {
  let accepted: ReadonlySet<string> = new Set();
  let running = 0;
  return {
    enter(walked) {
      if (running === 0) accepted = new Set(walked.paths);
      running += 1;
      return accepted;
    },
    leave(before, after) {
      running -= 1;
      return protectedMovedAside(jail, before, after, isReadable);
    },
  };
}

/**
 * The protected entries a command made: each place in the workspace that
 * the walk after it masks as protected and that was not there before it
 * (`before`), moved aside to `<name>-held-by-toolgate` (see `moveAside`).
 * The sandbox masks what is protected when a command starts; a path that
 * is not there yet cannot be masked without a mount point left in the real
 * workspace, so what a command makes there (`cp payload .claude/`, a `git
 * apply` whose patch adds a `toolgate.config.json` that the next start
 * would read, a link `.claude` to a folder of its own) is taken out after
 * it. An entry that could not be moved is a problem that fails the call;
 * so is a workspace the command left too large to walk whole, once what
 * an agent or MCP client reads at its start was moved aside
 * (`startupEntries`).
 */
export function protectedMovedAside(jail: FsJail, before: ReadonlySet<string>, after: FoundProtectedFiles | undefined, isReadable: (absolute: string) => boolean = () => false): ProtectedCheck {
  const workspace = jail.workspace;
  const moved: MovedProtectedPath[] = [];
  const failed: string[] = [];
  for (const entry of after?.paths ?? startupEntries(jail, isReadable)) {
    // Outside the workspace: where a link leads, masked, never moved.
    if (before.has(entry) || !isInside(workspace, entry) || MOVED_ASIDE_NAME.test(entry) || !madeProtected(jail, entry)) continue;
    const aside = moveAside(entry, `${path.basename(entry)}${MOVED_ASIDE_SUFFIX}`, workspace);
    if (aside === 'failed') failed.push(fromWorkspace(workspace, entry));
    else if (aside !== 'gone') moved.push({ from: fromWorkspace(workspace, entry), to: fromWorkspace(workspace, aside.to) });
  }
  const what = 'the command ran, but toolgate could not';
  const movedText = moved.length === 0 ? '' : ` (moved aside: ${moved.map((entry) => `${entry.from} to ${entry.to}`).join(', ')})`;
  if (failed.length > 0) return { moved, problem: `${what} move the protected files it made aside (${failed.join(', ')})${movedText}: remove them before starting an agent there` };
  if (after === undefined) {
    return {
      moved,
      problem: `the command ran, but the workspace could not be walked whole afterwards, so toolgate could not look for every protected file or repository it made${movedText}: look at what is new there, and at each nested repository's .git/config and .git/hooks, before starting an agent or running git there`,
    };
  }
  return { moved, problem: undefined };
}

/**
 * Whether an entry the walk masks is one to move aside: protected by its
 * place, or a link named as a folder the protected list names files below
 * (`FsJail.namesProtectedBelow`). Not the host's stores, which it makes
 * itself, nor what is open by its place (a hard link to a file a command
 * made, a folder the walk could not list: neither is read as configuration
 * by its name).
 */
function madeProtected(jail: FsJail, entry: string): boolean {
  const kind = jail.classify(entry);
  if (kind === 'secret_store') return false;
  if (kind !== 'open') return true;
  return lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === true && jail.namesProtectedBelow(entry);
}

/**
 * What a toolgate, an agent or an MCP client started in the workspace reads
 * first, for a workspace too large to walk whole: the entries of its top
 * folder that the walk would mask, and those below each folder there that
 * the protected list names files below (`FsJail.namesProtectedBelow`:
 * `.claude`, `.cursor`, `.vscode`, `.codex`, `.kiro`, `.amazonq`,
 * `.continue`…), where Claude Code, Cursor, VS Code, Codex and the others
 * read the servers they start and the tasks they run (`clientFolderEntries`).
 * Never a `.git`, which the walk leaves to the repository guards, nor a
 * protected file the policy lets be read, which it leaves visible.
 */
function startupEntries(jail: FsJail, isReadable: (absolute: string) => boolean): string[] {
  const entries: string[] = [];
  const clientFolders: string[] = [];
  for (const entry of listed(jail.workspace)) {
    if (entry.name === '.git') continue;
    const absolute = path.join(jail.workspace, entry.name);
    if (masksWhole(jail, isReadable, absolute, entry)) entries.push(absolute);
    // A link of such a name is masked whole above; only a real folder is read.
    else if (entry.isDirectory() && jail.namesProtectedBelow(absolute)) clientFolders.push(absolute);
  }
  return [...entries, ...clientFolderEntries(jail, isReadable, clientFolders)];
}

/**
 * The entries below `folders` that the walk would mask, read level by
 * level down to `CLIENT_FOLDER_DEPTH`: each of `folders` whole, whatever it
 * holds (as `.claude` always was), then the folders below them while fewer
 * than `CLIENT_FOLDER_ENTRIES` of their entries were read, those the
 * protected list names files below there first (`.kiro/settings`,
 * `.continue/mcpServers`). So a folder flooded with entries keeps neither
 * the others' own entries nor those folders from being read. A folder
 * masked whole is taken as one entry and not entered; a link is judged by
 * `masksWhole`, never followed.
 */
function clientFolderEntries(jail: FsJail, isReadable: (absolute: string) => boolean, folders: readonly string[]): string[] {
  const entries: string[] = [];
  let level = folders;
  let read = 0;
  for (let depth = 1; depth <= CLIENT_FOLDER_DEPTH && level.length > 0; depth += 1) {
    const named: string[] = [];
    const others: string[] = [];
    for (const folder of level) {
      if (read >= CLIENT_FOLDER_ENTRIES) return entries;
      const listing = listed(folder);
      if (depth > 1) read += listing.length;
      for (const entry of listing) {
        if (entry.name === '.git') continue;
        const absolute = path.join(folder, entry.name);
        if (masksWhole(jail, isReadable, absolute, entry)) entries.push(absolute);
        else if (entry.isDirectory()) (jail.namesProtectedBelow(absolute) ? named : others).push(absolute);
      }
    }
    level = [...named, ...others];
  }
  return entries;
}

/** A folder's entries, or none when it cannot be read: nothing of it is moved, and the call says the workspace was not checked. */
function listed(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}
