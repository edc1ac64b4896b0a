import type { DispatchState, StageResult } from './dispatch-state.js';

/**
 * Stage 18: the definition's `finalizeContent` owns the last content-only
 * invariant, for every normalized result, failures included. It must be
 * synchronous and total; if it throws anyway the content stays as it was
 * and the fault is reported.
 */
export function finalizeContent(state: DispatchState, result: StageResult, content: string): string {
  const finalize = state.tool?.definition.finalizeContent;
  if (finalize === undefined) return content;
  try {
    const replaced = finalize({ ok: result.ok, content, value: result.ok ? result.value : undefined, errorCode: result.ok ? undefined : result.error.code });
    if (typeof replaced !== 'string' || replaced === content) return content;
    state.contentReplaced = true;
    return replaced;
  } catch (error) {
    console.warn(`toolgate: finalizeContent of tool "${state.tool?.key ?? ''}" threw; content kept`, error);
    return content;
  }
}
