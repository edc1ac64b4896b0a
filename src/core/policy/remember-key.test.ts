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

describe('the argv rule "Always allow" writes', () => {
  const path = (requested: string, contentStamp?: string) => ({
    requested,
    path: requested,
    real: requested,
    protected: false,
    linkTraversal: false,
    outside: false,
    created: false,
    hardLinked: false,
    ...(contentStamp === undefined ? {} : { contentStamp }),
  });
  const commandRule = (argv: string[], argumentPaths: ReturnType<typeof path>[]) => {
    const command = { argv, executable: '/usr/bin/sh', cwd: path('.'), arguments: argumentPaths };
    const resolved: ResolvedAction = { resolvedBy: 'host', access: 'read', files: [], command };
    return rememberKey(approvalRequest({ toolName: 'run_command', action: 'process', resolved }));
  };

  test('is written for a command whose arguments name no file', () => {
    expect(commandRule(['sh', '-c', 'true'], [path('-c'), path('true')])?.rule).toEqual({ tool: 'run_command', match: { argv: ['sh', '-c', 'true'], exact: true } });
  });

  test('is not written for a command whose argument is a file: no rule says what the file held', () => {
    // `sh run.sh` remembered runs what run.sh held when the person was shown it; a rule would run whatever it holds later.
    const key = commandRule(['sh', 'run.sh'], [path('run.sh', '2049:131:26:1700000000000:1700000000000')]);
    expect(key?.id).toContain('2049:131:26');
    expect(key?.rule).toBeUndefined();
  });
});
