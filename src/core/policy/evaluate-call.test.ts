import { describe, expect, it } from 'vitest';
import { compileRule } from './compile-rule.js';
import { evaluateCall, riskNeedsAsk, type CallEvaluator } from './evaluate-call.js';
import type { ArgumentPolicyInput } from './policy-types.js';
import { createPathMatcher, createProtectedPathMatcher } from './protected-paths.js';
import type { RateCheck } from './rate-limiter.js';
import { createRuleIndex } from './rule-index.js';
import { toolView } from './__fixtures__/tool-views.js';

const evaluator = (overrides: Partial<CallEvaluator> = {}): CallEvaluator => ({
  version: 7,
  roots: ['/work/repo'],
  config: { commands: { commands: [], globs: [] }, domains: [], mcpServers: new Set(), tier: 'workspace-write' },
  rules: createRuleIndex([compileRule({ rule: 'Read(private/**)', decision: 'deny', source: 'project' }, 0), compileRule({ rule: 'Read(review/**)', decision: 'ask', source: 'project' }, 1)]),
  takeToken: () => ({ ok: true }),
  isProtected: createProtectedPathMatcher(),
  isReadable: createPathMatcher([]),
  approveAtRisk: undefined,
  ...overrides,
});

const read = (path: string): ArgumentPolicyInput => ({ tool: toolView('read'), agent: undefined, args: { path }, target: { path }, gateApproved: false });

describe('evaluateCall', () => {
  it('lets the floor refuse first, with no rule and no token taken', () => {
    let taken = 0;
    const result = evaluateCall(read('/etc/passwd'), true, evaluator({ takeToken: () => ((taken += 1), { ok: true }) }));
    expect(result.decision).toMatchObject({ kind: 'deny', policyVersion: 7, matched: [] });
    expect(result.guardrail).toBeDefined();
    expect(result.verdict).toBeUndefined();
    expect(taken).toBe(0);
  });

  it('refuses by a deny rule, naming it', () => {
    expect(evaluateCall(read('private/a.txt'), true, evaluator()).decision).toMatchObject({ kind: 'deny', reason: 'rule_denied', detail: 'was refused by policy rule "project#0"', policyVersion: 7 });
  });

  it('says so when a deny or ask covers a command it could not read whole', () => {
    // Under a glob the floor refuses a command it cannot read whole; an exact entry passes it as written, and the deny reads it.
    const long = ['setarch', ...Array.from({ length: 16_000 }, (_, index) => `a${String(index % 10)}`)];
    const rules = createRuleIndex([compileRule({ rule: 'Bash(*)', decision: 'allow', source: 'project' }, 0), compileRule({ rule: 'Bash(rm:*)', decision: 'deny', source: 'project' }, 1)]);
    const commands = evaluator({ config: { commands: { commands: [long], globs: [['*']] }, domains: [], mcpServers: new Set(), tier: 'workspace-write' }, rules });
    const globOnly = evaluator({ config: { commands: { commands: [], globs: [['*']] }, domains: [], mcpServers: new Set(), tier: 'workspace-write' }, rules });
    const run = (command: readonly string[]): ArgumentPolicyInput => ({ tool: toolView('command'), agent: undefined, args: { command }, target: { command }, gateApproved: false });
    // The floor lists only the commands of programs it judges: 16,000 plain words cost it no bound (the deny, which
    // reads every command, covers them), 16,000 words that each start a shell do, and it refuses what it cannot read.
    expect(evaluateCall(run(long), false, globOnly).decision).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
    const shells = ['setarch', ...Array.from({ length: 16_000 }, () => 'sh')];
    expect(evaluateCall(run(shells), false, globOnly).decision).toMatchObject({ kind: 'deny', reason: 'command_not_allowed', detail: expect.stringContaining('cannot read') as unknown });
    const swamped = evaluateCall(run(long), false, commands);
    expect(swamped.decision).toMatchObject({ kind: 'deny', reason: 'rule_denied', detail: expect.stringContaining('could not read every command') as unknown });
    expect(swamped.notes.some((note) => note.includes('could not read every command'))).toBe(true);
    // Arguments a pattern could not read to their end: the refusal says so too.
    const cyclic: Record<string, unknown> = { path: 'out.txt' };
    cyclic.self = cyclic;
    const patterns = evaluator({ rules: createRuleIndex([compileRule({ tool: 'read_file', decision: 'deny', source: 'project', match: { argsPattern: '"path":"secret' } }, 0)]) });
    const unreadable = evaluateCall({ ...read('out.txt'), args: cyclic }, false, patterns);
    expect(unreadable.decision).toMatchObject({ kind: 'deny', detail: expect.stringContaining('arguments to their end') as unknown });
    expect(evaluateCall(read('out.txt'), false, patterns).decision.kind).not.toBe('deny');
    // A command read whole and denied is refused by the rule alone.
    expect(evaluateCall(run(['setarch', 'x86_64', 'rm', 'x']), false, commands).decision).toMatchObject({ kind: 'deny', detail: 'was refused by policy rule "project#1"' });
  });

  it('takes a rate-limit token only when asked to consume one', () => {
    const limited: RateCheck = { ok: false, retryAfterMs: 500, scope: 'tool' };
    const strict = evaluator({ takeToken: () => limited });
    const consumed = evaluateCall(read('src/a.ts'), true, strict);
    expect(consumed.decision).toMatchObject({ kind: 'deny', reason: 'rate_limited', retryAfterMs: 500 });
    expect(consumed.notes).toEqual(['rate limit per tool']);
    expect(evaluateCall(read('src/a.ts'), false, strict).decision.kind).toBe('allow');
  });

  it('asks for an ask rule before a protected path or the risk, and notes each reason', () => {
    const result = evaluateCall(read('review/.env'), false, evaluator({ approveAtRisk: 'low' }));
    expect(result.decision).toMatchObject({ kind: 'ask', reason: 'rule' });
    expect(result.notes).toEqual(['a protected path is read only when a person says so', 'risk low is at or above approveAtRisk low']);
    expect(evaluateCall(read('src/a.ts'), false, evaluator({ approveAtRisk: 'low' })).decision).toMatchObject({ kind: 'ask', reason: 'risk' });
  });

  it('allows when nothing matched, and says the default applied', () => {
    const result = evaluateCall(read('src/a.ts'), true, evaluator());
    expect(result.decision).toEqual({ kind: 'allow', matched: [], policyVersion: 7 });
    expect(result.notes).toEqual(['no rule matched: read-only tools allow']);
  });
});

describe('riskNeedsAsk', () => {
  it('asks at or above the threshold, never without one', () => {
    expect(riskNeedsAsk(toolView('command'), 'high')).toBe(true);
    expect(riskNeedsAsk(toolView('write'), 'high')).toBe(false);
    expect(riskNeedsAsk(toolView('command'), undefined)).toBe(false);
  });
});
