import { lstatSync, readlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { followLinks } from '../fs/follow-links.js';
import { isInside } from '../fs/fs-jail.js';
import { protectedLinksOf } from '../fs/linked-protection.js';
import type { FoundProtectedFiles } from './find-protected-files.js';
import { fromWorkspace, moveAside } from './move-aside.js';

/** What a link of the workspace a command replaced becomes: `<name>-held-by-toolgate`, beside it. */
const MOVED_ASIDE_SUFFIX = '-held-by-toolgate';

/** The links a command may not change, as they stood before it. */
export interface KeptLinks {
  /** Each link by its text. */
  readonly links: ReadonlyMap<string, string>;
  /** The protected links whose way led, in the workspace, to nothing yet: what a command makes there is moved aside. */
  readonly unmade: readonly string[];
}

export interface LinkKeeper {
  /**
   * Before a command, with the walk that found what its sandbox masks: the
   * links as the user has them. Read only when no other command is under
   * way; while one is, what was read then stands, so a command started
   * beside another never takes a link the other re-pointed for the user's
   * (and puts it back so, after the other put it right).
   */
  enter(walked: FoundProtectedFiles): KeptLinks;
  /** After it (always, once `enter` was called): see `restoreKeptLinks`. */
  leave(before: KeptLinks): string | undefined;
}

export function createLinkKeeper(workspace: string): LinkKeeper {
  let accepted: KeptLinks = { links: new Map(), unmade: [] };
  let running = 0;
  return {
    enter(walked) {
      if (running === 0) accepted = keptLinksOf(workspace, walked);
      running += 1;
      return accepted;
    },
    leave(before) {
      running -= 1;
      return restoreKeptLinks(workspace, before);
    },
  };
}

/**
 * The links of the workspace that decide what a protected name is: the
 * protected entries that are links (the user's `.env` a link to
 * `config/dev.secrets`), the repository's code that is a link (`.git/hooks`,
 * `.git/config`, a hook), and every link of the workspace on the way to
 * where one of them leads (`tools` a link to `shared/tools`, on the way from
 * `.git/hooks/pre-commit` to `tools/hooks/pre-commit`). The sandbox masks or
 * holds where they lead; a link itself is no mount point, so a command can
 * remove or re-point it: `.env` then led to a file the model wrote, and the
 * hook to a script of its own, which the user's git ran at the next commit.
 */
export function keptLinksOf(workspace: string, walked: FoundProtectedFiles): KeptLinks {
  const kept = new Map<string, string>();
  const unmade: string[] = [];
  for (const { link: start } of protectedLinksOf(workspace, walked.paths)) {
    // Every link on the real way, each read where it lies (`followLinks`); of a loop, the links that make it. One outside
    // the workspace too: in the `full` scope a command can re-point it.
    const way = followLinks(start);
    for (const link of way.links) {
      const text = linkText(link);
      if (text !== undefined) kept.set(link, text);
    }
    if (unmadeIn(workspace, way.target) !== undefined) unmade.push(start);
  }
  return { links: kept, unmade };
}

/** The place in the workspace a protected link's way ends on when nothing is there yet; undefined for any other end. */
function unmadeIn(workspace: string, target: string | undefined): string | undefined {
  return target !== undefined && isInside(workspace, target) && lstatSync(target, { throwIfNoEntry: false }) === undefined ? target : undefined;
}

/** The folders the kept links are in, each once: pinned in the sandbox (`BwrapArgsOptions.pinned`). */
export function keptLinkFolders(kept: KeptLinks | undefined): string[] {
  return kept === undefined ? [] : [...new Set([...kept.links.keys()].map((link) => path.dirname(link)))];
}

/**
 * After a command: each kept link it removed, or replaced with anything
 * else, is put back as it was (what stands in its place moved aside, as a
 * protected entry a command made is); then what it made where a protected
 * link led to nothing (a hook that `.git/hooks/pre-commit` leads to, which
 * the user's git would run at the next commit; what `.env` leads to) is
 * moved aside: the sandbox holds or masks only what is there when a command
 * starts. Undefined when it changed none; else why the call fails, naming
 * what was put back or moved aside, or what could not be.
 */
export function restoreKeptLinks(workspace: string, before: KeptLinks): string | undefined {
  const problems = [linksPutBack(workspace, before.links), unmadeMovedAside(workspace, before.unmade)].filter((problem) => problem !== undefined);
  return problems.length === 0 ? undefined : `the command ran, and ${problems.join('; and ')}`;
}

function linksPutBack(workspace: string, links: ReadonlyMap<string, string>): string | undefined {
  const restored: string[] = [];
  const failed: string[] = [];
  for (const [link, text] of [...links].sort(([left], [right]) => (left < right ? -1 : 1))) {
    if (linkText(link) === text) continue;
    const name = fromWorkspace(workspace, link);
    const aside = lstatSync(link, { throwIfNoEntry: false }) === undefined ? 'gone' : moveAside(link, `${path.basename(link)}${MOVED_ASIDE_SUFFIX}`, workspace);
    try {
      if (aside === 'failed') throw new Error('not moved aside');
      symlinkSync(text, link);
      restored.push(aside === 'gone' ? name : `${name} (what stood there moved to ${fromWorkspace(workspace, aside.to)})`);
    } catch {
      failed.push(name);
    }
  }
  if (restored.length === 0 && failed.length === 0) return undefined;
  const put = restored.length === 0 ? '' : `; toolgate put ${restored.join(', ')} back`;
  const left = failed.length === 0 ? '' : `; toolgate could not put ${failed.join(', ')} back: put them back before running git or starting an agent there`;
  return `it removed or re-pointed links that decide what a protected name of the workspace is (a user's .env, a hook of the repository)${put}${left}`;
}

/** What a command made where a protected link (put back as it was) led to nothing, moved aside; undefined when it made nothing there. */
function unmadeMovedAside(workspace: string, unmade: readonly string[]): string | undefined {
  const moved: string[] = [];
  const failed: string[] = [];
  for (const start of unmade) {
    // Followed again: a link the command made on the way (`tools` to a folder of its own) leads the way elsewhere now.
    const target = followLinks(start).target;
    if (target === undefined || !isInside(workspace, target) || lstatSync(target, { throwIfNoEntry: false }) === undefined) continue;
    const aside = moveAside(target, `${path.basename(target)}${MOVED_ASIDE_SUFFIX}`, workspace);
    const name = `${fromWorkspace(workspace, target)} (where ${fromWorkspace(workspace, start)} leads)`;
    if (aside === 'failed') failed.push(name);
    else if (aside !== 'gone') moved.push(`${name} to ${fromWorkspace(workspace, aside.to)}`);
  }
  if (moved.length === 0 && failed.length === 0) return undefined;
  const aside = moved.length === 0 ? '' : `; toolgate moved ${moved.join(', ')} aside`;
  const left = failed.length === 0 ? '' : `; toolgate could not move ${failed.join(', ')} aside: remove them before running git or starting an agent there`;
  return `it made what a protected link of the workspace leads to, which was not there before it (a user's .env, a hook of the repository)${aside}${left}`;
}

/** The link's text, or undefined when it is no link. */
function linkText(entry: string): string | undefined {
  try {
    return lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === true ? readlinkSync(entry) : undefined;
  } catch {
    return undefined;
  }
}
