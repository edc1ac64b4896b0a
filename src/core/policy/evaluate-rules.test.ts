import { describe, expect, it } from 'vitest';
import { compileRule } from './compile-rule.js';
import { evaluateRules } from './evaluate-rules.js';
import type { RuleDecision } from './rule-types.js';

const HEAVY = `${'.*a'.repeat(3000)}[YZ]`;
const subject = { tool: 'write_file', argv: undefined, paths: [], host: undefined, server: undefined, args: { path: 'out.txt', content: 'a'.repeat(60_000) } };
const rule = (decision: RuleDecision) => compileRule({ source: 'project', decision, tool: 'write_file', match: { argsPattern: HEAVY } }, 0);

describe('evaluateRules: argument patterns past the budget of one call', () => {
  it('a deny or ask whose pattern was not read to the end covers the call; an allow does not', () => {
    expect(evaluateRules([rule('deny')], subject)).toMatchObject({ decision: 'deny', unreadArguments: true });
    expect(evaluateRules([rule('ask')], subject)).toMatchObject({ decision: 'ask', unreadArguments: true });
    expect(evaluateRules([rule('allow')], subject).decision).toBeUndefined();
  });

  it('a pattern read whole answers as it matches', () => {
    const small = { ...subject, args: { path: 'out.txt', content: 'aaa' } };
    expect(evaluateRules([rule('deny')], small).decision).toBeUndefined();
    expect(evaluateRules([compileRule({ source: 'project', decision: 'deny', tool: 'write_file', match: { argsPattern: 'aaa' } }, 0)], small)).not.toHaveProperty('unreadArguments');
  });
});

describe('evaluateRules: arguments with no JSON form', () => {
  it('a deny or ask of an argument pattern covers them; an allow does not', () => {
    const cyclic: Record<string, unknown> = { path: 'out.txt' };
    cyclic.self = cyclic;
    const unreadable = { ...subject, args: cyclic };
    const pattern = (decision: RuleDecision) => compileRule({ source: 'project', decision, tool: 'write_file', match: { argsPattern: '"path":"secret' } }, 0);
    expect(evaluateRules([pattern('deny')], unreadable)).toMatchObject({ decision: 'deny', unreadArguments: true });
    expect(evaluateRules([pattern('ask')], unreadable).decision).toBe('ask');
    expect(evaluateRules([pattern('allow')], unreadable).decision).toBeUndefined();
    expect(evaluateRules([pattern('deny')], { ...subject, args: { path: 'out.txt' } }).decision).toBeUndefined();
  });
});
