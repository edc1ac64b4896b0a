import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { realOrSelf } from './fs-jail.js';
import { repositoryCodeLinks } from '../process/find-repository-code.js';

/**
 * The files a protected name of the workspace leads to. The user's `.env`
 * may be a link to `config/dev.secrets`, a hook in `.git/hooks` a link to
 * `tools/hooks/pre-commit`: the sandbox masks (or holds) where such a link
 * leads, so the file tools judge that file as the name that links to it,
 * protected, not by its own ordinary name (a `read_file config/dev.secrets`
 * under `Read(**)` read the secrets; in `accept-edits` a `write_file` of the
 * hook's target changed what the user's git runs at the next commit).
 *
 * No file says which links lead to it, so the places come from the walks
 * of the workspace the sandbox makes (`findProtectedFiles`): the one made
 * before the first question, each command's, and the one the first file
 * write makes. A link made while the gateway runs counts from the next
 * walk, and a place once learned stays protected until the gateway stops;
 * a workspace too large to walk is judged by names alone.
 */
export interface LinkedProtection {
  /** Whether `absolute`, a real path, is where a protected name of the workspace leads (compared case-folded, as the jail compares). */
  has(absolute: string): boolean;
  /** The protected entries a whole walk of the workspace found: where those that are links lead, and where the repository's hook links lead. */
  learn(found: readonly string[]): void;
  /**
   * Run a walk of the workspace. While it runs, `has` answers no: the walk
   * sees the workspace by its names alone, as the sandbox masks it, so what
   * one walk learned never changes what the next one classifies (a file that
   * turned protected between the walks before and after a command would be
   * taken for one the command made, and moved aside).
   */
  walking<T>(walk: () => T): T;
  /** The walk to make before the first question, when none was made yet. */
  walkFirstWith(walk: () => void): void;
}

export function createLinkedProtection(workspace: string): LinkedProtection {
  let files: ReadonlySet<string> = new Set();
  let folders: readonly string[] = [];
  let firstWalk: (() => void) | undefined;
  let walked = false;
  let inWalk = false;
  const protection: LinkedProtection = {
    has(absolute) {
      if (inWalk) return false;
      if (!walked && firstWalk !== undefined) {
        try {
          firstWalk();
        } catch {
          // A walk that fails leaves names alone to judge, as a workspace too large to walk does.
        }
      }
      if (files.size === 0 && folders.length === 0) return false;
      const folded = absolute.toLowerCase();
      return files.has(folded) || folders.some((folder) => folded.startsWith(folder));
    },
    learn(found) {
      // Kept for as long as the gateway runs: a command that removed or re-pointed the user's `.env` link (put back
      // after it, see `restoreKeptLinks`) leaves what it led to protected all the same.
      const nextFiles = new Set(files);
      const nextFolders = [...folders];
      // The walk does not enter `.git`: the repository's code that is a link (`.git/hooks`, `.git/config`, a hook) is read here.
      for (const link of [...found.filter(isLink), ...repositoryCodeLinks(workspace)]) {
        const target = whereLinkLeads(link);
        if (target === undefined) continue;
        const folded = target.toLowerCase();
        nextFiles.add(folded);
        // A folder (`.ssh` a link to `dotfiles/ssh`) with everything in it.
        if (statSync(target, { throwIfNoEntry: false })?.isDirectory() === true && !nextFolders.includes(folded + path.sep)) nextFolders.push(folded + path.sep);
      }
      files = nextFiles;
      folders = nextFolders;
    },
    walking(walk) {
      // The first walk is whichever comes first: the file tools' question waits for none after it.
      walked = true;
      inWalk = true;
      try {
        return walk();
      } finally {
        inWalk = false;
      }
    },
    walkFirstWith(walk) {
      firstWalk = walk;
    },
  };
  return protection;
}

const isLink = (entry: string): boolean => lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === true;

/**
 * Where a link leads, really; for one that leads nowhere yet, the place a
 * file written through it would take (the real folder it names, and the
 * name): a model's `write_file` there would become the user's `.env`, or a
 * hook the user's git runs.
 */
function whereLinkLeads(link: string): string | undefined {
  try {
    return realpathSync.native(link);
  } catch {
    try {
      // Its folders need not exist either: a write there makes them.
      return realOrSelf(path.resolve(path.dirname(link), readlinkSync(link)));
    } catch {
      return undefined;
    }
  }
}
