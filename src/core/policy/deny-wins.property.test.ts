import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createPolicy } from './create-policy.js';
import type { PolicyRuleObject, RuleSource } from './rule-types.js';
import { callOf } from './__fixtures__/tool-views.js';

// Words the floor lets through in any order, so a decision is the rules' alone (`npm x` is `npm exec`, which the floor refuses under a glob).
const word = fc.constantFrom('git', 'status', 'push', 'rm', '-rf', 'ls', 'npm', 'test', ';', '&&', 'y');
const argv = fc.array(word, { minLength: 1, maxLength: 4 });
const pattern = fc.tuple(fc.array(fc.oneof(word, fc.constant('g*')), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([elements, rest]) => (rest ? [...elements, '*'] : elements));
const source = fc.constantFrom<RuleSource>('project', 'user', 'session', 'cli', 'managed');
const rule = fc.record({
  pattern,
  decision: fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const),
  source,
  priority: fc.integer({ min: -3, max: 3 }),
  band: fc.boolean(),
});

type Generated = { pattern: string[]; decision: 'allow' | 'ask' | 'deny'; source: RuleSource; priority: number; band: boolean };

const toRules = (rules: Generated[], flat: boolean): PolicyRuleObject[] =>
  rules.map((entry, index) => ({
    id: `r${index}`,
    tool: 'run_command',
    decision: entry.decision,
    source: entry.source,
    match: { argv: entry.pattern },
    // Flat: Claude Code semantics, one band and one priority.
    ...(flat ? { band: 'claude-code' as const } : { priority: entry.priority, ...(entry.band ? { band: 'claude-code' as const } : {}) }),
  }));

describe('property: a deny anywhere always wins', () => {
  test('within one band and priority, any matching deny decides, whatever the order', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), argv, (rules, command) => {
        const policy = createPolicy({ allowedCommandGlobs: ['*'], rules: toRules(rules, true) });
        const decision = policy.decideArguments(callOf('command', { command }));
        const anyDeny = decision.matched.some((matched) => matched.decision === 'deny');
        expect(decision.kind === 'deny').toBe(anyDeny);
        const reversed = createPolicy({ allowedCommandGlobs: ['*'], rules: toRules([...rules].reverse(), true) });
        expect(reversed.decideArguments(callOf('command', { command })).kind).toBe(decision.kind);
      }),
      { numRuns: 300 },
    );
  });

  test('a floor denial is never lifted by any rule set', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), argv, (rules, command) => {
        const policy = createPolicy({ allowedCommands: ['ls'], rules: toRules(rules, false) });
        const decision = policy.decideArguments(callOf('command', { command }));
        if (command.join(' ') !== 'ls') expect(decision).toMatchObject({ kind: 'deny', reason: 'command_not_allowed' });
        else expect(decision.kind === 'deny' && decision.reason === 'command_not_allowed').toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  test('the winning rule is never outranked by a matched rule of another decision', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 8 }), argv, (rules, command) => {
        const compiled = toRules(rules, false);
        const policy = createPolicy({ allowedCommandGlobs: ['*'], rules: compiled });
        const decision = policy.decideArguments(callOf('command', { command }));
        const matched = decision.matched.map((entry) => compiled.find((candidate) => candidate.id === entry.id) as PolicyRuleObject);
        const rank = (entry: PolicyRuleObject): [number, number] => [entry.source === 'managed' && entry.band === undefined ? 1 : 0, entry.priority ?? 0];
        const top = matched[0];
        if (top === undefined) return;
        for (const other of matched) {
          const [band, priority] = rank(other);
          const [topBand, topPriority] = rank(top);
          // Nothing outranks the winner; at equal rank a deny is first.
          expect(band > topBand || (band === topBand && priority > topPriority)).toBe(false);
          if (band === topBand && priority === topPriority && other.decision === 'deny') expect(top.decision).toBe('deny');
        }
      }),
      { numRuns: 300 },
    );
  });
});
