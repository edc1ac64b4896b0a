import path from 'node:path';
import { climbsOut } from './fs-jail.js';
import { trailingRunStart } from '../../core/policy/trailing-run.js';
import { compileWildmatch, type MatchBudget } from './wildmatch.js';

export interface IgnoreRule {
  readonly negate: boolean;
  readonly directoryOnly: boolean;
  /** Tests a workspace-relative, `/`-separated path. */
  readonly matches: (relative: string) => boolean;
}

/**
 * Parse one `.gitignore` found in directory `base` (workspace-relative, `''`
 * for the root). Supports comments, negation, trailing-slash directory
 * rules, anchored patterns (a leading or inner `/`) and `**`, matched as
 * git's wildmatch matches them (`compileWildmatch`).
 */
export function parseGitignore(text: string, base: string, budget: MatchBudget): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = withoutTrailingSpace(rawLine);
    if (line.length === 0 || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    // A leading backslash (`\#`, `\!`, `\*`) escapes what follows, as everywhere in a pattern: the matcher reads it.
    const directoryOnly = line.endsWith('/');
    line = line.slice(0, trailingRunStart(line, (char) => char === '/'));
    if (line.length === 0) continue;
    const anchored = line.includes('/');
    const pattern = line.replace(/^\/+/, '');
    const test = compileWildmatch(pattern);
    rules.push({
      negate,
      directoryOnly,
      matches(relative) {
        if (budget.remaining <= 0) return false;
        budget.remaining -= 1;
        const local = base === '' ? relative : path.posix.relative(base, relative);
        if (climbsOut(local)) return false;
        return anchored ? test(local, budget) : test(path.posix.basename(local), budget);
      },
    });
  }
  return rules;
}

/**
 * A line without its trailing whitespace, but the character a backslash
 * escapes (`a\\ ` keeps its space), as git reads it, found by one scan from
 * the end (`trailingRunStart`): a `.gitignore` line may hold 200,000 spaces
 * and a letter.
 */
function withoutTrailingSpace(line: string): string {
  const end = trailingRunStart(line, (char) => /\s/.test(char));
  if (end === line.length) return line;
  // The first of the run escaped: it stays, the rest go.
  return end > 0 && line[end - 1] === '\\' ? line.slice(0, end + 1) : line.slice(0, end);
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
