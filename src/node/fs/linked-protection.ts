import { lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import { followLinks } from './follow-links.js';
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
 * a workspace too large to walk is judged by names alone, but for the
 * repository's code git names, which no walk finds and each walk learns.
 */
export interface LinkedProtection {
  /** Whether `absolute`, a real path, is where a protected name of the workspace leads, or lies in such a folder (compared case-folded, as the jail compares). */
  has(absolute: string): boolean;
  /**
   * Whether `absolute` is a folder of the workspace that holds such a place:
   * written (an upstream `move_file` of it), it would carry the place off
   * under another name, or put another in its stead.
   */
  holds(absolute: string): boolean;
  /** Where the protected entries that are links lead, as spelled on this disk: masked in the sandbox at each command, whatever the links say then. */
  maskedPlaces(): readonly string[];
  /** The protected entries a whole walk of the workspace found: where those that are links lead, and where the repository's code that is a link leads. */
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
  /** Each place, case-folded, with its spelling on this disk and whether it may hold others (a folder, or not made yet). */
  const places = new Map<string, { readonly spelled: string; readonly folder: boolean; readonly masked: boolean }>();
  /** The folders that hold a place, case-folded, the workspace aside: a question looks its path up, never walks every place. */
  const holders = new Set<string>();
  let firstWalk: (() => void) | undefined;
  let walked = false;
  let inWalk = false;
  const ready = (): boolean => {
    if (inWalk) return false;
    if (!walked && firstWalk !== undefined) {
      try {
        firstWalk();
      } catch {
        // A walk that fails leaves names alone to judge, as a workspace too large to walk does.
      }
    }
    return places.size > 0;
  };
  const protection: LinkedProtection = {
    has(absolute) {
      if (!ready()) return false;
      const folded = absolute.toLowerCase();
      if (places.has(folded)) return true;
      // In a folder that is a place (`.ssh` a link to `dotfiles/ssh`): one lookup per folder above it.
      for (let above = path.dirname(folded); above !== path.dirname(above); above = path.dirname(above)) if (places.get(above)?.folder === true) return true;
      return false;
    },
    holds(absolute) {
      return ready() && holders.has(absolute.toLowerCase());
    },
    maskedPlaces() {
      return [...places.values()].filter((place) => place.masked).map((place) => place.spelled);
    },
    learn(found) {
      // Kept for as long as the gateway runs: a command that removed or re-pointed the user's `.env` link (put back
      // after it, see `restoreKeptLinks`) leaves what it led to protected all the same.
      const root = workspace.toLowerCase();
      /** `place` and the folders above it, the workspace aside, as folders whose write would move it. */
      const hold = (place: string): void => {
        for (let above = place; above !== root && above !== path.dirname(above); above = path.dirname(above)) holders.add(above);
      };
      const note = (link: string, masked: boolean): void => {
        const { target, links } = followLinks(link);
        // Each link on the way, and what holds it: moved (an upstream `move_file a a-old`, then another folder into its
        // place), it would lead the protected name elsewhere.
        for (const way of links) if (way !== link) hold(way.toLowerCase());
        if (target === undefined) return;
        const stats = statSync(target, { throwIfNoEntry: false });
        // A folder (`.ssh` a link to `dotfiles/ssh`) with everything in it; a place not made yet may become one.
        const folded = target.toLowerCase();
        const known = places.get(folded);
        places.set(folded, { spelled: target, folder: stats === undefined || stats.isDirectory(), masked: masked || known?.masked === true });
        hold(path.dirname(folded));
      };
      for (const { link, masked } of protectedLinksOf(workspace, found)) note(link, masked);
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

/**
 * The links that decide what a protected name is: the protected entries a
 * walk found that are links (masked where they lead), and, since the walk
 * does not enter `.git`, the repository's code that is a link (`.git/hooks`,
 * `.git/config`, a hook), which the sandbox holds read-only
 * (`findRepositoryCode`), not masked.
 */
export function protectedLinksOf(workspace: string, found: readonly string[]): { readonly link: string; readonly masked: boolean }[] {
  const isLink = (entry: string): boolean => lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  return [...found.filter(isLink).map((link) => ({ link, masked: true })), ...repositoryCodeLinks(workspace).map((link) => ({ link, masked: false }))];
}
