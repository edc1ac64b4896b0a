import { ToolBusyError, ToolCancelledError } from '../errors/tool-errors.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import { CODE_MODE_TOOL_NAME } from '../registry/registry-state.js';
import type { DispatchState, Eventually, ResolvedDispatchState } from './dispatch-state.js';

/**
 * Stage 11, first: a place among the calls the registry runs at once
 * (`limits.maxConcurrentCalls`), taken after the approval and the claim so
 * that a call waiting for a person holds none. A free place is taken with no
 * await; otherwise the call waits its turn, first come first served, and
 * leaves the line without running when its signal aborts. Past
 * `limits.maxQueuedCalls` waiting, it is refused at once: nothing started.
 *
 * Code Mode's `run_code` takes no place (its script's calls take theirs, so
 * a script cannot wait on calls the places it holds keep out), and a nested
 * call runs in its parent's place when the parent holds one.
 */
export function takeCallPlace(state: ResolvedDispatchState): Eventually<ToolgateError | undefined> {
  if (state.inParentsPlace || state.tool.name === CODE_MODE_TOOL_NAME) return undefined;
  const { calls, limits } = state.snapshot;
  if (calls.tryEnter()) {
    state.holdsPlace = true;
    return undefined;
  }
  if (calls.waiting >= limits.maxQueuedCalls) return new ToolBusyError(state.tool.key, limits.maxConcurrentCalls, calls.waiting);
  return calls.enter(state.context.signal).then((admitted) => {
    if (!admitted) return new ToolCancelledError(state.tool.key, 'before-dispatch');
    state.holdsPlace = true;
    return undefined;
  });
}

/** Give back the call's place, once its result is bounded or it failed; a call that holds none gives back nothing. */
export function releaseCallPlace(state: DispatchState): void {
  if (!state.holdsPlace) return;
  state.holdsPlace = false;
  state.snapshot.calls.leave();
}
