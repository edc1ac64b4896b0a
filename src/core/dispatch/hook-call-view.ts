import type { ToolExecution } from '../hooks/hook-types.js';
import type { DispatchState } from './dispatch-state.js';

/**
 * The readonly view of a call that every hook is given — `preExecute`,
 * guards, `around` wrappers and `postExecute` — read off the dispatch state
 * in this one place, so each kind of hook sees the same call. `signal` is
 * the one each receives: the caller's, or a wrapper's replacement.
 */
export function hookCallView(state: DispatchState, signal: AbortSignal | undefined): ToolExecution {
  return {
    callId: state.call.callId,
    toolName: state.tool?.key ?? state.call.name,
    toolVersion: state.tool?.version,
    agent: state.agent,
    parent: state.context.parent,
    arguments: state.effectiveArgs,
    signal,
    delegatesTo: state.tool?.policyView.delegatesTo,
  };
}
