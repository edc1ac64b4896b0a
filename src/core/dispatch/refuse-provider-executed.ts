import { ToolPolicyError } from '../errors/tool-errors.js';
import type { DispatchState } from './dispatch-state.js';

/** Stage 1: the engine never dispatches a call the provider already executed. */
export function refuseProviderExecuted(state: DispatchState): ToolPolicyError | undefined {
  return state.call.providerExecuted ? new ToolPolicyError(state.call.name || 'unknown', 'provider_executed') : undefined;
}
