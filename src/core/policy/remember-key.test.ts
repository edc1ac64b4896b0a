import { describe, expect, test } from 'vitest';
import type { ResolvedAction } from '../action/resolved-action.js';
import { compileRule } from './compile-rule.js';
import { rememberKey } from './remember-key.js';
import { approvalRequest } from './__fixtures__/approval-request.js';

/** The rule `always` would write for a write to `real`, as a host that resolved it to that one file gives it. */
function persistedPathRule(real: string): { readonly path: string } | undefined {
  const file = { requested: real, path: real, real, protected: false, linkTraversal: false, outside: false, created: false, hardLinked: false };
  const resolved: ResolvedAction = { resolvedBy: 'host', access: 'write', files: [file] };
  const rule = rememberKey(approvalRequest({ toolName: 'write_file', action: 'fs_write', resolved }))?.rule;
  return rule?.match as { readonly path: string } | undefined;
}

/** The allow rule `glob`, loaded as the next start loads it: which workspace paths it covers. */
function loaded(glob: string): (candidate: string) => boolean {
  const { match } = compileRule({ tool: 'write_file', decision: 'allow', source: 'project', match: { path: glob } }, 0);
  return (candidate) => match.kind === 'path' && match.test(candidate);
}

describe('the path rule "Always allow" writes names the approved file and no other', () => {
  test.each([
    ['an alternation in a later segment', 'drafts/today|run.sh', ['run.sh', 'drafts/today']],
    ['a quote, which the glob parser drops', '"deploy.sh', ['deploy.sh']],
    ['quotes around a name', 'docs/"*"', ['docs/*', 'docs/x']],
    ['an alternation and a parenthesis', 'a|(b)/c', ['a', 'b/c', '(b)/c']],
  ])('%s: %s', (_what, real, others) => {
    const rule = persistedPathRule(real);
    expect(rule).toBeDefined();
    const glob = (rule as { path: string }).path;
    const covers = loaded(glob);
    expect(covers(real)).toBe(true);
    for (const other of others) expect(covers(other), `${glob} covers ${other}`).toBe(false);
  });

  test('every printable ASCII character, anywhere in a name, is literal to the rule', () => {
    const characters = Array.from({ length: 127 - 32 }, (_, index) => String.fromCharCode(32 + index)).filter((character) => character !== '\\' && character !== '/');
    const names = characters.flatMap((character) => [`a${character}b/c`, `${character}x`, `d/x${character}`, `a${character}${character}b`, `s/${character}(y)${character}`]);
    // Each name's plausible other readings: the name without its odd characters, and the pieces they separate.
    const readings = [...new Set(names.flatMap((name) => [name.replace(/[^A-Za-z0-9/]/g, ''), ...name.split(/[^A-Za-z0-9/]+/)]))].filter((reading) => reading.length > 0);
    for (const name of names) {
      const rule = persistedPathRule(name);
      if (rule === undefined) continue;
      const covers = loaded(rule.path);
      expect(covers(name), `${rule.path} misses ${name}`).toBe(true);
      const wider = readings.filter((reading) => reading !== name && covers(reading));
      expect(wider, `${rule.path} covers other paths`).toEqual([]);
    }
  });
});
