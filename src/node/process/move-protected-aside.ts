import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { MovedProtectedPath } from '../../core/internal.js';
import { isInside, type FsJail } from '../fs/fs-jail.js';
import { masksWhole, type FoundProtectedFiles } from './find-protected-files.js';
import { fromWorkspace, moveAside } from './move-aside.js';

/** What a protected entry a command made becomes: `<name>-held-by-toolgate`, beside it. */
const MOVED_ASIDE_SUFFIX = '-held-by-toolgate';
/** A name this guard gave (the plain one, or with its random suffix): moved aside already, never moved again. */
const MOVED_ASIDE_NAME = /-held-by-toolgate(?:-[0-9a-f]{12})?$/;

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
 * is read at an agent's start was moved aside (`startupEntries`).
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
 * (`FsJail.leadsProtectedSpelling`). Not the host's stores, which it makes
 * itself, nor what is open by its place (a hard link to a file a command
 * made, a folder the walk could not list: neither is read as configuration
 * by its name).
 */
function madeProtected(jail: FsJail, entry: string): boolean {
  const kind = jail.classify(entry);
  if (kind === 'secret_store') return false;
  if (kind !== 'open') return true;
  return lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === true && jail.leadsProtectedSpelling(entry);
}

/**
 * What a toolgate, Claude Code or Gemini CLI started in the workspace reads
 * first, for a workspace too large to walk whole: the entries of its top
 * folder and of its `.claude` folder that the walk would mask (never a
 * `.git`, which the walk leaves to the repository guards, nor a protected
 * file the policy lets be read, which it leaves visible).
 */
function startupEntries(jail: FsJail, isReadable: (absolute: string) => boolean): string[] {
  const entries: string[] = [];
  for (const folder of [jail.workspace, path.join(jail.workspace, '.claude')]) {
    if (lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    try {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const absolute = path.join(folder, entry.name);
        if (entry.name !== '.git' && masksWhole(jail, isReadable, absolute, entry)) entries.push(absolute);
      }
    } catch {
      // Unreadable: nothing of it is moved, and the call says the workspace was not checked.
    }
  }
  return entries;
}
