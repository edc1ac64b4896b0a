import { ToolPolicyError } from '../errors/tool-errors.js';
import type { PreExecuteDecision } from '../hooks/hook-types.js';
import { redactedLine } from '../policy/redacted-line.js';
import { applyPolicyDecision } from './apply-policy-decision.js';
import type { ResolvedDispatchState } from './dispatch-state.js';
import { hookCallView } from './hook-call-view.js';

/**
 * Stage 8: `preExecute` hooks in order (allow / deny / ask; no input
 * rewrite), then the monotonic guards. A guard's denial is final: nothing
 * after it can turn it back into permission. A hook that throws denies.
 */
export async function runPreExecuteHooks(state: ResolvedDispatchState): Promise<ToolPolicyError | undefined> {
  const tool = state.tool;
  const { preExecute, guards } = state.snapshot.hooks;
  const execution = Object.freeze(hookCallView(state, state.context.signal));
  for (const hook of preExecute) {
    let decision: PreExecuteDecision | undefined;
    try {
      decision = await hook(execution);
    } catch (error) {
      return new ToolPolicyError(tool.key, 'hook_denied', { detail: 'was refused: a pre-execute hook failed (fail closed)', cause: error });
    }
    if (decision === undefined) continue;
    if (decision.kind === 'deny') {
      return applyPolicyDecision(state, { kind: 'deny', reason: 'hook_denied', detail: `was refused by a pre-execute hook: ${hookText(decision.reason)}`, matched: [] }, 'hooks');
    }
    if (decision.kind === 'ask') applyPolicyDecision(state, { kind: 'ask', reason: decision.reason ?? 'a pre-execute hook asked', matched: [] }, 'hooks');
  }
  for (const guard of guards) {
    let denial: string | undefined;
    try {
      denial = guard(execution);
    } catch (error) {
      return new ToolPolicyError(tool.key, 'guard_denied', { detail: 'was refused: a guard failed (fail closed)', cause: error });
    }
    if (denial !== undefined) return new ToolPolicyError(tool.key, 'guard_denied', { detail: `was refused by a guard: ${hookText(denial)}` });
  }
  return undefined;
}

/** Hook-authored text is trusted, but still scrubbed and bounded before it reaches a message. */
function hookText(text: string): string {
  return redactedLine(String(text));
}
