import path from 'node:path';
import picomatch from 'picomatch';
import { climbsOut } from './fs-jail.js';

export interface IgnoreRule {
  readonly negate: boolean;
  readonly directoryOnly: boolean;
  /** Tests a workspace-relative, `/`-separated path. */
  readonly matches: (relative: string) => boolean;
}

/**
 * Parse one `.gitignore` found in directory `base` (workspace-relative, `''`
 * for the root). Supports comments, negation, trailing-slash directory
 * rules, anchored patterns (a leading or inner `/`) and `**`.
 */
export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.replace(/(?<!\\)\s+$/, '');
    if (line.length === 0 || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    if (line.startsWith('\\')) line = line.slice(1);
    const directoryOnly = line.endsWith('/');
    line = line.replace(/\/+$/, '');
    if (line.length === 0) continue;
    const anchored = line.includes('/');
    const pattern = line.replace(/^\/+/, '');
    const test = picomatch(pattern, { dot: true });
    rules.push({
      negate,
      directoryOnly,
      matches(relative) {
        const local = base === '' ? relative : path.posix.relative(base, relative);
        if (climbsOut(local)) return false;
        return anchored ? test(local) : test(path.posix.basename(local));
      },
    });
  }
  return rules;
}

/** The last matching rule decides, as in git. */
export function isIgnored(rules: readonly IgnoreRule[], relative: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.matches(relative)) ignored = !rule.negate;
  }
  return ignored;
}
