import { ToolExecutionError, ToolPolicyError } from '../errors/tool-errors.js';
import type { PostExecuteDecision } from '../hooks/hook-types.js';
import type { ResolvedDispatchState, StageResult } from './dispatch-state.js';
import { hookCallView } from './hook-call-view.js';
import { contentOf } from './render-content.js';
import { validateOutput } from './validate-output.js';

/**
 * Stage 16: `postExecute` hooks in order. Accept may replace the content or
 * the value — never both; a replaced value is revalidated and re-rendered —
 * and may attach ordered contexts. Block turns the result into a valueless
 * failure carrying the hook's feedback. A hook that throws fails closed.
 */
export async function runPostExecuteHooks(state: ResolvedDispatchState, initial: StageResult): Promise<StageResult> {
  const tool = state.tool;
  let result = initial;
  for (const hook of state.snapshot.hooks.postExecute) {
    const content = contentOf(state, result);
    let decision: PostExecuteDecision | undefined;
    try {
      decision = await hook({ ...hookCallView(state, state.context.signal), ok: result.ok, value: result.ok ? result.value : undefined, content, errorCode: result.ok ? undefined : result.error.code });
    } catch (error) {
      return { ok: false, error: new ToolExecutionError(tool.key, { cause: error, detail: 'a post-execute hook failed' }) };
    }
    if (decision === undefined) continue;
    if (decision.contexts !== undefined) (state.contexts ??= []).push(...decision.contexts.map(String));
    if (decision.kind === 'block') {
      return { ok: false, error: new ToolPolicyError(tool.key, 'result_blocked', { detail: 'was blocked by a post-execute hook' }), content: String(decision.feedback) };
    }
    const replacesContent = decision.content !== undefined;
    const replacesValue = 'value' in decision && decision.value !== undefined;
    if (replacesContent && replacesValue) {
      return { ok: false, error: new ToolExecutionError(tool.key, { detail: 'a post-execute hook replaced both the content and the value' }) };
    }
    if (replacesValue && result.ok) {
      const revalidated = await validateOutput(state, { ok: true, value: decision.value });
      if (!revalidated.ok) return revalidated;
      result = { ok: true, value: revalidated.value };
    } else if (replacesContent) {
      const content = decision.content as string;
      state.contentReplaced = true;
      result = result.ok ? { ok: true, value: result.value, content } : { ok: false, error: result.error, content };
    }
  }
  return result;
}
