import { describe, expect, it } from 'vitest';
import type { ResolvedAction } from '../action/resolved-action.js';
import { createPendingDecisions, type Decided } from './pending-decisions.js';
import type { PolicyDecision } from './policy-types.js';
import { toolView } from './__fixtures__/tool-views.js';

const allow: PolicyDecision = { kind: 'allow', matched: [] };
const deny: PolicyDecision = { kind: 'deny', reason: 'rule_denied', matched: [] };
const action = (url: string): ResolvedAction => ({ resolvedBy: 'lexical', access: 'read', files: [], http: { method: 'GET', url } }) as unknown as ResolvedAction;

const decided = (url: string, decision: PolicyDecision = allow, agent?: string): Decided => ({
  input: { tool: toolView('http'), agent, args: { url }, target: { url }, action: action(url), gateApproved: false },
  decision,
  version: 1,
});

const keyOf = (entry: Decided) => ({ toolName: entry.input.tool.name, agent: entry.input.agent, resolved: entry.input.action });

describe('createPendingDecisions', () => {
  it('finds a decision by its arguments and, for an approval, by tool, agent and action', () => {
    const decisions = createPendingDecisions(16);
    const entry = decided('https://a.example/x', allow, 'planner');
    decisions.remember(entry);
    expect(decisions.byArguments(entry.input.args)).toBe(entry);
    expect(decisions.byArguments({ ...(entry.input.args as object) })).toBeUndefined();
    expect(decisions.find(keyOf(entry))).toEqual([entry]);
    expect(decisions.find({ ...keyOf(entry), agent: 'other' })).toEqual([]);
    expect(decisions.find({ ...keyOf(entry), resolved: action('https://b.example/x') })).toEqual([]);
  });

  it('holds no approval look-up for a denied call, and nothing for arguments that are not an object', () => {
    const decisions = createPendingDecisions(16);
    const refused = decided('https://a.example/x', deny);
    decisions.remember(refused);
    expect(decisions.byArguments(refused.input.args)).toBe(refused);
    expect(decisions.find(keyOf(refused))).toEqual([]);
    const scalar: Decided = { ...decided('https://a.example/y'), input: { ...decided('https://a.example/y').input, args: 'text' } };
    decisions.remember(scalar);
    expect(decisions.byArguments('text')).toBeUndefined();
    expect(decisions.find(keyOf(scalar))).toEqual([]);
  });

  it('settles the oldest of two identical pending calls first', () => {
    const decisions = createPendingDecisions(16);
    const first = decided('https://a.example/x');
    const second = decided('https://a.example/x');
    decisions.remember(first);
    decisions.remember(second);
    expect(decisions.find(keyOf(first))).toEqual([first, second]);
    decisions.settle(keyOf(first));
    expect(decisions.find(keyOf(first))).toEqual([second]);
  });

  it('drops the oldest pending call beyond the backstop', () => {
    const decisions = createPendingDecisions(2);
    const entries = ['https://a.example/1', 'https://a.example/2', 'https://a.example/3'].map((url) => decided(url));
    for (const entry of entries) decisions.remember(entry);
    expect(entries.map((entry) => decisions.find(keyOf(entry)).length)).toEqual([0, 1, 1]);
  });
});
