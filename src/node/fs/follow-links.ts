import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** Links followed on one way, at most: as many as Linux follows. */
const MAX_LINKS = 40;

/**
 * Where the absolute path `start` leads, followed as the kernel follows it:
 * each link on the way, the last name included, read where it really is
 * (its text's `..` taken from the folder it really lies in, not from the
 * spelling that reached it), and every link followed, in order. A name that
 * does not exist yet, and whatever follows it, is taken as spelled: a write
 * there makes it, and lands where this says. No target for a loop, or a way
 * longer than the kernel follows: the links followed until then.
 */
export function followLinks(start: string): { readonly target: string | undefined; readonly links: readonly string[] } {
  const links: string[] = [];
  let pending = namesOf(start);
  let reached = path.parse(start).root;
  while (pending.length > 0) {
    const [name, ...rest] = pending as [string, ...string[]];
    pending = rest;
    if (name === '.') continue;
    if (name === '..') {
      reached = path.dirname(reached);
      continue;
    }
    const next = path.join(reached, name);
    const text = linkText(next);
    if (text === undefined) {
      reached = next;
      continue;
    }
    if (links.length >= MAX_LINKS) return { target: undefined, links };
    links.push(next);
    // A relative text goes on from the folder the link lies in; an absolute one from the root.
    if (path.isAbsolute(text)) reached = path.parse(text).root;
    pending = [...namesOf(text), ...pending];
  }
  return { target: reached, links };
}

function namesOf(spelled: string): string[] {
  return spelled.split(path.sep).filter((name) => name !== '');
}

function linkText(entry: string): string | undefined {
  try {
    return lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === true ? readlinkSync(entry) : undefined;
  } catch {
    return undefined;
  }
}
