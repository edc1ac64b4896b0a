import type { MatchedRule, ToolReceipt } from '../core/internal.js';

/*
 * What decided a call, in words, from its receipt alone: the live view and
 * the receipts list say the same thing. `policy.decision` is the rules'
 * answer before anyone was asked, so a call that asked and was approved,
 * or that never reached the policy, reads as what really happened.
 */

const SCOPES: Readonly<Record<string, string>> = { once: 'once', session: 'for the session', always: 'always' };

function named(rule: MatchedRule): string {
  return `rule ${rule.rule ?? rule.id} (${rule.source})`;
}

/** Who approved, from `approval.how` (`confirm:<by>`, `pre-approved`). */
function approver(how: string | undefined): string {
  if (how === 'pre-approved') return 'in advance (a pre-approved action digest)';
  const by = how?.startsWith('confirm:') === true ? how.slice('confirm:'.length) : undefined;
  if (by === undefined) return 'by the approval hook';
  if (by === 'console') return 'by the console';
  if (by === 'remembered') return 'by a remembered approval';
  if (by.startsWith('mode:')) return `by mode ${by.slice('mode:'.length)}`;
  return `by ${by}`;
}

/**
 * A rejection in words, from `approval.how`. Only the console, the terminal
 * and an MCP client's elicitation ask a person; every other rejecter is a
 * rule of the gateway, and saying "rejected when asked" of it told the audit
 * a person refused what nobody saw. A receipt written before rejections
 * named their rejecter (`confirm` alone) reads as it always did.
 */
function rejection(how: string | undefined): string {
  const by = how?.startsWith('confirm:') === true ? how.slice('confirm:'.length) : undefined;
  if (by === undefined) return 'rejected when asked';
  if (by === 'console' || by === 'tty' || by === 'mcp-client') return `rejected when asked, by ${by === 'console' ? 'the console' : by === 'tty' ? 'the terminal' : 'the MCP client'}`;
  if (by.startsWith('mode:')) return `rejected by mode ${by.slice('mode:'.length)}`;
  return Object.hasOwn(REJECTERS, by) ? (REJECTERS[by] as string) : `rejected by ${by}`;
}

const REJECTERS: Readonly<Record<string, string>> = {
  'approval-queue': 'rejected: nobody decided in time, or the approval queue was full',
  gateway: 'rejected: nobody could be asked (no console)',
  policy: 'rejected: the policy changed while it waited',
  classifier: 'rejected by the auto-mode classifier',
  toolgate: 'rejected without asking: a person rejected an earlier call of this script',
};

export function describeDecision(receipt: Pick<ToolReceipt, 'status' | 'code' | 'policy' | 'approval'>): string {
  const { status, code, policy, approval } = receipt;
  if (code === 'ARGS_INVALID') return 'invalid arguments';
  let decided: string;
  if (approval.outcome === 'approve') {
    const scope = approval.scope === undefined ? undefined : SCOPES[approval.scope];
    decided = `approved ${scope === undefined ? '' : `${scope} `}${approver(approval.how)}`;
  } else if (approval.outcome === 'reject') {
    decided = rejection(approval.how);
  } else if (policy.decision === 'deny') {
    const rule = policy.rules.find((entry) => entry.decision === 'deny');
    decided = rule === undefined ? `denied by the policy floor (${code})` : `denied by ${named(rule)}`;
  } else if (policy.decision === 'allow') {
    const rule = policy.rules.find((entry) => entry.decision === 'allow');
    decided = rule === undefined ? 'allowed: nothing asks for it' : `allowed by ${named(rule)}`;
  } else if (status === 'error') {
    return `failed (${code})`;
  } else {
    decided = status === 'denied' ? `denied (${code})` : 'not decided';
  }
  return status === 'error' ? `${decided}, then failed (${code})` : decided;
}
