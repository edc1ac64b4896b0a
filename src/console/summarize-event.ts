import type { ToolgateEventMap } from '../core/internal.js';
import type { LiveCall } from './console-types.js';
import { describeDecision } from './describe-decision.js';

type LiveEventName = 'tool-call-requested' | 'approval-requested' | 'tool-result';

export function summarizeEvent<TName extends LiveEventName>(name: TName, event: ToolgateEventMap[TName]): LiveCall {
  const base = { callId: event.callId, tool: event.toolName, agent: event.agent, at: event.at };
  if (name === 'tool-call-requested') return { ...base, status: 'requested' };
  if (name === 'approval-requested') return { ...base, status: 'awaiting-approval', decision: 'waiting for a person to approve' };
  const result = event as ToolgateEventMap['tool-result'];
  return {
    ...base,
    status: result.receipt.status,
    decision: describeDecision(result.receipt),
    durationMs: result.durationMs,
    code: result.code,
    invocationId: result.receipt.invocationId,
  };
}
