import { ToolgateError } from '../errors/toolgate-error.js';
import { assembleArguments } from './assemble-arguments.js';
import { checkGrant } from './check-grant.js';
import { decideArgumentPolicy } from './decide-argument-policy.js';
import { decideIdentityPolicy } from './decide-identity-policy.js';
import type { DispatchState, Eventually, ResolvedDispatchState } from './dispatch-state.js';
import { refuseProviderExecuted } from './refuse-provider-executed.js';
import { resolveTool } from './resolve-tool.js';
import { runPreExecuteHooks } from './run-pre-execute-hooks.js';
import { validateArguments } from './validate-arguments.js';

/** The refusal of the first stage that refused, or the call resolved, with its arguments valid and judged. */
export type DecisionResult = ToolgateError | ResolvedDispatchState;

/**
 * Stages 1–8, everything decided about a call before anyone is asked or
 * anything runs: provider-executed refusal, exact resolution, the grant,
 * identity policy, argument assembly and validation, argument policy, and
 * the `preExecute` hooks and guards when there are any. `dispatch` and
 * `prepare` both run this one sequence, so a plan can never judge a call
 * differently from the dispatch it stands for.
 *
 * Synchronous unless validation, the host's path resolution or a hook has
 * I/O to do: the plain path allocates no promise here.
 */
export function runDecisionStages(state: DispatchState): Eventually<DecisionResult> {
  const refused = refuseProviderExecuted(state); // 1
  if (refused !== undefined) return refused;
  const resolved = resolveTool(state); // 2
  if (resolved instanceof ToolgateError) return resolved;
  const refusal =
    checkGrant(resolved) ?? // 3
    decideIdentityPolicy(resolved); // 4
  if (refusal !== undefined) return refusal;
  const assembled = assembleArguments(resolved); // 5
  if (assembled instanceof ToolgateError) return assembled;
  const invalid = validateArguments(resolved, assembled); // 6
  if (invalid instanceof Promise) return invalid.then((settled) => settled ?? afterValidation(resolved));
  return invalid ?? afterValidation(resolved);
}

function afterValidation(state: ResolvedDispatchState): Eventually<DecisionResult> {
  const denied = decideArgumentPolicy(state); // 7
  if (denied instanceof Promise) return denied.then((settled) => settled ?? afterArgumentPolicy(state));
  return denied ?? afterArgumentPolicy(state);
}

function afterArgumentPolicy(state: ResolvedDispatchState): Eventually<DecisionResult> {
  if (!state.features.hooked) return state;
  return runPreExecuteHooks(state).then((refused) => refused ?? state); // 8
}
