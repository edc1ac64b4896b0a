import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGitignore, isIgnored } from './gitignore-rules.js';
import { compileWildmatch } from './wildmatch.js';

const budget = () => ({ remaining: 1_000_000 });

// Pattern, path, whether git ignores the path (read as a file) under that one rule.
const CASES: readonly (readonly [string, string])[] = [
  ['*.log', 'a.log'],
  ['*.log', 'dir/a.log'],
  ['/root.txt', 'root.txt'],
  ['/root.txt', 'dir/root.txt'],
  ['dir/*.js', 'dir/a.js'],
  ['dir/*.js', 'dir/sub/a.js'],
  ['**/build', 'a/b/build'],
  ['**/build', 'build'],
  ['a/**/b', 'a/b'],
  ['a/**/b', 'a/x/y/b'],
  ['a/**', 'a/x/y'],
  ['a**b', 'axxb'],
  ['a**b', 'ax/xb'],
  ['?.txt', 'a.txt'],
  ['?.txt', 'ab.txt'],
  ['[abc].md', 'b.md'],
  ['[!abc].md', 'b.md'],
  ['[!abc].md', 'd.md'],
  ['[a-c]x', 'bx'],
  ['[[:digit:]]*', '1file'],
  ['[[:digit:]]*', 'file1'],
  ['\\*.txt', '*.txt'],
  ['\\*.txt', 'a.txt'],
  ['{a,b}.txt', 'a.txt'],
  ['.env*', '.env.local'],
  ['*', '.hidden'],
  ['[]].txt', '].txt'],
  ['a[', 'a['],
  ['trailing\\ ', 'trailing '],
];

describe('compileWildmatch: gitignore patterns as git reads them', () => {
  it('agrees with git check-ignore on each case', () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'toolgate-wildmatch-'));
    try {
      execFileSync('git', ['init', '-q', repo]);
      for (const [pattern, file] of CASES) {
        writeFileSync(path.join(repo, '.gitignore'), `${pattern}\n`);
        let git: boolean;
        try {
          execFileSync('git', ['-C', repo, 'check-ignore', '-q', '--no-index', '--', file]);
          git = true;
        } catch {
          git = false;
        }
        const ours = isIgnored(parseGitignore(`${pattern}\n`, '', budget()), file, false);
        expect(ours, `${pattern} against ${file}`).toBe(git);
      }
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('takes time in proportion to the text times the pattern, whatever they hold', () => {
    const stars = compileWildmatch(`${'*a'.repeat(40)}*b`);
    const started = performance.now();
    expect(stars('a'.repeat(255), budget())).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('stops matching once the listing has spent its budget', () => {
    const spent = { remaining: 10 };
    expect(compileWildmatch('*x')('a'.repeat(100), spent)).toBe(false);
    expect(compileWildmatch('*a')('aaa', { remaining: 100 })).toBe(true);
  });
});
