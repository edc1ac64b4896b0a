import { ConfigurationError, ToolCancelledError } from '../errors/tool-errors.js';
import type { AdmittedCall, DispatchState } from './dispatch-state.js';
import type { ToolCall } from './dispatch-types.js';

/**
 * Stage 0, first half: take a snapshot of the call envelope. A malformed
 * envelope is the caller's mistake (not the model's) and throws.
 */
export function admitCall(call: ToolCall): AdmittedCall {
  if (typeof call !== 'object' || call === null) throw new ConfigurationError('call', 'must be an object');
  const { callId, name, arguments: rawArguments, providerExecuted } = call;
  if (typeof callId !== 'string' || callId.length === 0) throw new ConfigurationError('call.callId', 'must be a non-empty string');
  // A fresh internal object, typed readonly: the caller's envelope is never read again.
  return { callId, name: typeof name === 'string' ? name : '', rawArguments, providerExecuted: providerExecuted === true };
}

/** Stage 0, second half: a signal already aborted yields one result, with no policy and no body. */
export function refuseIfAborted(state: DispatchState): ToolCancelledError | undefined {
  return state.context.signal?.aborted === true ? new ToolCancelledError(state.call.name, 'before-dispatch') : undefined;
}
