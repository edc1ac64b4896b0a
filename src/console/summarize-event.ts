import type { ToolgateEventMap } from '../core/index.js';

/** One row of the live view. */
export interface LiveCall {
  readonly callId: string;
  readonly tool: string;
  readonly agent: string | undefined;
  readonly at: number;
  readonly status: 'requested' | 'awaiting-approval' | 'ok' | 'error' | 'denied' | 'cancelled' | 'replayed';
  readonly decision?: string;
  readonly durationMs?: number;
  readonly code?: string;
  readonly invocationId?: string;
}

type LiveEventName = 'tool-call-requested' | 'approval-requested' | 'tool-result';

export function summarizeEvent<TName extends LiveEventName>(name: TName, event: ToolgateEventMap[TName]): LiveCall {
  const base = { callId: event.callId, tool: event.toolName, agent: event.agent, at: event.at };
  if (name === 'tool-call-requested') return { ...base, status: 'requested' };
  if (name === 'approval-requested') return { ...base, status: 'awaiting-approval', decision: 'ask' };
  const result = event as ToolgateEventMap['tool-result'];
  return {
    ...base,
    status: result.receipt.status,
    decision: result.receipt.policy.decision,
    durationMs: result.durationMs,
    code: result.code,
    invocationId: result.receipt.invocationId,
  };
}
