import { ToolBusyError, ToolCancelledError } from '../errors/tool-errors.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import { CODE_MODE_TOOL_NAME } from '../registry/registry-state.js';
import type { DispatchState, Eventually, ResolvedDispatchState } from './dispatch-state.js';

/**
 * The share `run_code` scripts take their places in, as a server's calls do.
 * A script's calls run in its one place, so without a share of their own,
 * scripts waiting on an upstream that never answers took every place, past
 * the server's share. No configured server can have this name.
 */
const SCRIPTS_SHARE = '(run_code)';

/**
 * Stage 10, first: a place among the calls the registry runs at once
 * (`limits.maxConcurrentCalls`), taken after the approval, so that a call
 * waiting for a person holds none, and before the journal's claim, so that
 * a call waiting its turn has claimed nothing a crash would leave open. A
 * free place is taken with no await; otherwise the call waits its turn,
 * first come first served, and leaves the line without running when its
 * signal aborts. Past `limits.maxQueuedCalls` waiting, it is refused at
 * once: nothing started. A call to an MCP server takes its place within
 * that server's share, half the places (`createCallPlaces`).
 *
 * A nested call (Code Mode's, a body's `dispatchNested`) runs in the place
 * its parent holds, or its parent's parent: a parent waiting on its nested
 * calls would otherwise wait on places it keeps from them. Looked at when the
 * nested call gets here, so one a parent left running after it returned
 * takes a place of its own.
 */
export function takeCallPlace(state: ResolvedDispatchState): Eventually<ToolgateError | undefined> {
  if (state.holdsPlace || placeHeldAbove(state)) return undefined;
  const { places, limits } = state.snapshot;
  const server = serverOf(state);
  if (places.tryTake(server)) {
    state.holdsPlace = true;
    return undefined;
  }
  const waiting = places.waiting;
  if (waiting >= limits.maxQueuedCalls) return new ToolBusyError(state.tool.key, limits.maxConcurrentCalls, waiting);
  return places.take(server, state.context.signal).then((admitted) => {
    if (!admitted) return new ToolCancelledError(state.tool.key, 'before-dispatch');
    state.holdsPlace = true;
    return undefined;
  });
}

/** Give back the call's place, once its result is bounded or it failed; a call that holds none gives back nothing. */
export function releaseCallPlace(state: DispatchState): void {
  if (!state.holdsPlace) return;
  state.holdsPlace = false;
  state.snapshot.places.give(serverOf(state));
}

/**
 * Run `work` (another agent's turn, which dispatches its own calls on this
 * registry) with the call's place given back, and wait for a place again
 * after it, whatever the line holds: a call that keeps its place while it
 * waits on calls that need one could wait forever. Aborted while it waits
 * again, the call goes on without a place, as its body is ending.
 */
export async function outOfPlace<T>(state: DispatchState, work: () => Promise<T>): Promise<T> {
  if (!state.holdsPlace) return work();
  releaseCallPlace(state);
  try {
    return await work();
  } finally {
    if (await state.snapshot.places.take(serverOf(state), state.context.signal)) state.holdsPlace = true;
  }
}

/**
 * The MCP server a call talks to, whose share of the places it takes
 * (`createCallPlaces`); fixed since stage 7. A script takes the scripts'
 * share: its nested calls may all wait on one server, in its one place.
 */
function serverOf(state: DispatchState): string | undefined {
  return state.action?.mcp?.server ?? (state.tool?.key === CODE_MODE_TOOL_NAME ? SCRIPTS_SHARE : undefined);
}

function placeHeldAbove(state: DispatchState): boolean {
  for (let parent = state.parent; parent !== undefined; parent = parent.parent) if (parent.holdsPlace) return true;
  return false;
}
