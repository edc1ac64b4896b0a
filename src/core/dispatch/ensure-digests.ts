import { computeInvocationDigests, type InvocationDigests } from '../digest/invocation-digests.js';
import type { DispatchState } from './dispatch-state.js';

/** Digests are computed only when a feature of the call needs them, and then once. */
export async function ensureDigests(state: DispatchState): Promise<InvocationDigests> {
  if (state.digests !== undefined) return state.digests;
  const tool = state.tool;
  if (tool === undefined) throw new TypeError('digests need a resolved tool');
  state.digests = await computeInvocationDigests(tool, state.agent, state.effectiveArgs);
  return state.digests;
}
