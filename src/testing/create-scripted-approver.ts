import type { ConfirmActionHook, ToolApprovalDecision, ToolApprovalRequest } from '../core/internal.js';

export type ScriptedAnswer = ToolApprovalDecision | 'approve' | 'reject' | 'throw' | 'hang' | ((request: ToolApprovalRequest) => ToolApprovalDecision | Promise<ToolApprovalDecision>);

export interface ScriptedApprover {
  readonly confirm: ConfirmActionHook;
  /** Every request seen, in order. */
  readonly requests: readonly ToolApprovalRequest[];
}

/**
 * A `confirm` hook that answers from a script, in order; the last answer
 * repeats. `'hang'` never answers (until the signal aborts), to test the
 * cancel path; `'throw'` fails, to test `approval_error`.
 */
export function createScriptedApprover(...answers: ScriptedAnswer[]): ScriptedApprover {
  const requests: ToolApprovalRequest[] = [];
  let index = 0;
  const confirm: ConfirmActionHook = async (request, signal) => {
    requests.push(request);
    const answer = answers[Math.min(index, answers.length - 1)] ?? 'reject';
    index += 1;
    if (answer === 'approve') return { outcome: 'approve' };
    if (answer === 'reject') return { outcome: 'reject', reason: 'scripted rejection' };
    if (answer === 'throw') throw new Error('scripted approver failure');
    if (answer === 'hang') {
      return new Promise<ToolApprovalDecision>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    }
    return typeof answer === 'function' ? answer(request) : answer;
  };
  return { confirm, requests };
}
