import { describe, expect, it } from 'vitest';
import type { ToolReceipt } from '../core/internal.js';
import { describeDecision } from './describe-decision.js';

type Decided = Pick<ToolReceipt, 'status' | 'code' | 'policy' | 'approval'>;
const receipt = (over: Partial<Decided>): Decided => ({ status: 'ok', code: 'OK', policy: { decision: 'allow', version: 1, rules: [] }, approval: { outcome: 'not-required' }, ...over });
const push = { id: 'project#2', source: 'project', decision: 'ask', rule: 'Bash(git push:*)' } as const;

describe('describeDecision', () => {
  it('says a call that asked was approved, once or for the session, by whom — never just "allow"', () => {
    const asked = { policy: { decision: 'ask', version: 1, rules: [push] } } as const;
    expect(describeDecision(receipt({ ...asked, approval: { outcome: 'approve', how: 'confirm:console', scope: 'once' } }))).toBe('approved once by the console');
    expect(describeDecision(receipt({ ...asked, approval: { outcome: 'approve', how: 'confirm:console', scope: 'session' } }))).toBe('approved for the session by the console');
    expect(describeDecision(receipt({ approval: { outcome: 'approve', how: 'confirm:remembered', scope: 'always' } }))).toBe('approved always by a remembered approval');
    expect(describeDecision(receipt({ approval: { outcome: 'approve', how: 'confirm:mode:accept-edits' } }))).toBe('approved by mode accept-edits');
    expect(describeDecision(receipt({ approval: { outcome: 'approve', how: 'pre-approved' } }))).toBe('approved in advance (a pre-approved action digest)');
    expect(describeDecision(receipt({ ...asked, status: 'denied', code: 'DENIED_BY_USER', approval: { outcome: 'reject', how: 'confirm' } }))).toBe('rejected when asked');
  });

  it('says who rejected: a person only when one was asked, and a rule of the gateway as what it is', () => {
    const rejected = (how: string): string => describeDecision(receipt({ status: 'denied', code: 'DENIED_BY_USER', approval: { outcome: 'reject', how } }));
    expect(rejected('confirm:console')).toBe('rejected when asked, by the console');
    expect(rejected('confirm:tty')).toBe('rejected when asked, by the terminal');
    expect(rejected('confirm:mode:plan')).toBe('rejected by mode plan');
    expect(rejected('confirm:approval-queue')).toBe('rejected: nobody decided in time, or the approval queue was full');
    expect(rejected('confirm:gateway')).toBe('rejected: nobody could be asked (no console)');
    expect(rejected('confirm:policy')).toBe('rejected: the policy changed while it waited');
    expect(rejected('confirm:constructor')).toBe('rejected by constructor');
  });

  it('names the rule that allowed or denied, with its source, and the floor when no rule did', () => {
    expect(describeDecision(receipt({ policy: { decision: 'allow', version: 1, rules: [{ id: 'project#0', source: 'project', decision: 'allow', rule: 'Read(./docs/**)' }] } }))).toBe('allowed by rule Read(./docs/**) (project)');
    expect(describeDecision(receipt({}))).toBe('allowed: nothing asks for it');
    const denyRule = { id: 'import[0]:deny:1', source: 'project', decision: 'deny', rule: 'Bash(rm:*)' } as const;
    expect(describeDecision(receipt({ status: 'denied', code: 'POLICY_DENIED', policy: { decision: 'deny', version: 1, rules: [denyRule] } }))).toBe('denied by rule Bash(rm:*) (project)');
    expect(describeDecision(receipt({ status: 'denied', code: 'POLICY_DENIED', policy: { decision: 'deny', version: 1, rules: [] } }))).toBe('denied by the policy floor (POLICY_DENIED)');
  });

  it('says invalid arguments and failures as what they are, even where the policy had allowed', () => {
    expect(describeDecision(receipt({ status: 'error', code: 'ARGS_INVALID' }))).toBe('invalid arguments');
    expect(describeDecision(receipt({ status: 'error', code: 'TOOL_TIMEOUT', approval: { outcome: 'approve', how: 'confirm:console', scope: 'once' } }))).toBe('approved once by the console, then failed (TOOL_TIMEOUT)');
    expect(describeDecision(receipt({ status: 'error', code: 'UNKNOWN_TOOL', policy: { decision: 'none', version: undefined, rules: [] } }))).toBe('failed (UNKNOWN_TOOL)');
  });
});
