import { projectArguments } from '../receipts/project-arguments.js';
import { admitBeforeDispatch } from './admit-before-dispatch.js';
import { refuseIfAborted } from './admit-call.js';
import { assembleArguments } from './assemble-arguments.js';
import { boundContent } from './bound-content.js';
import { checkGrant } from './check-grant.js';
import { decideArgumentPolicy } from './decide-argument-policy.js';
import { decideIdentityPolicy } from './decide-identity-policy.js';
import { eventBase, type DispatchState, type StageResult } from './dispatch-state.js';
import type { ToolOutcome } from './dispatch-types.js';
import { executeTool } from './execute-tool.js';
import { finalizeContent } from './finalize-content.js';
import { mapOutput } from './map-output.js';
import { isJournaled, prepareJournal } from './prepare-journal.js';
import { refuseProviderExecuted } from './refuse-provider-executed.js';
import { contentOf } from './render-content.js';
import { secretKeySet } from './projected-arguments.js';
import { needsApproval, requestApproval } from './request-approval.js';
import { resolveTool } from './resolve-tool.js';
import { runPostExecuteHooks } from './run-post-execute-hooks.js';
import { runPreExecuteHooks } from './run-pre-execute-hooks.js';
import { settleCall } from './settle-call.js';
import { splitAttachments } from './split-attachments.js';
import type { NestedDispatch } from './tool-context.js';
import { validateArguments } from './validate-arguments.js';
import { validateOutput } from './validate-output.js';

/** A stage's value now, or later when it had I/O to do. */
type Eventually<T> = T | Promise<T>;

/**
 * The fixed order of a dispatch (design.md, stages 0–20). Every stage is its
 * own function in this folder; this file only sequences them. A failure at
 * any stage skips to bounding, finalization and settlement (17–20), so every
 * call yields exactly one outcome.
 *
 * Stages that only sometimes do I/O (async validation, hooks, approval, the
 * journal, a spill) return a promise only then, and the sequence continues
 * synchronously otherwise: the plain path with a synchronous tool body
 * allocates one promise, the one `dispatch` returns.
 */
export function runDispatch(state: DispatchState, nested: NestedDispatch): Promise<ToolOutcome> {
  try {
    if (state.observed && state.snapshot.bus.has('tool-call-requested')) {
      state.snapshot.bus.emit('tool-call-requested', { ...eventBase(state), toolInput: projectArguments(state.call.rawArguments, { secretKeys: secretKeySet(state) }) });
    }
    const result = runStages(state, nested); // 0–16
    const outcome = result instanceof Promise ? result.then((settled) => finish(state, settled)) : finish(state, result); // 17–20
    return outcome instanceof Promise ? outcome : Promise.resolve(outcome);
  } catch (error) {
    // Only a caller or configuration mistake throws; it still surfaces as a rejection, never synchronously.
    return Promise.reject(error instanceof Error ? error : new Error('dispatch failed', { cause: error }));
  }
}

/** Stages 0–7 (synchronous unless validation is), then the rest. */
function runStages(state: DispatchState, nested: NestedDispatch): Eventually<StageResult> {
  const failure =
    refuseIfAborted(state) ?? // 0
    refuseProviderExecuted(state) ?? // 1
    resolveTool(state) ?? // 2
    checkGrant(state) ?? // 3
    decideIdentityPolicy(state) ?? // 4
    assembleArguments(state); // 5
  if (failure !== undefined) return { ok: false, error: failure };
  const invalid = validateArguments(state); // 6
  if (invalid instanceof Promise) return invalid.then((settled) => (settled === undefined ? afterValidation(state, nested) : { ok: false, error: settled }));
  return invalid === undefined ? afterValidation(state, nested) : { ok: false, error: invalid };
}

function afterValidation(state: DispatchState, nested: NestedDispatch): Eventually<StageResult> {
  const denied = decideArgumentPolicy(state); // 7
  if (denied instanceof Promise) return denied.then((settled) => (settled === undefined ? afterArgumentPolicy(state, nested) : { ok: false, error: settled }));
  if (denied !== undefined) return { ok: false, error: denied };
  return afterArgumentPolicy(state, nested);
}

function afterArgumentPolicy(state: DispatchState, nested: NestedDispatch): Eventually<StageResult> {
  const hooks = state.snapshot.hooks;
  if (hooks.preExecute.length > 0 || hooks.guards.length > 0 || needsApproval(state) || isJournaled(state)) return governedStages(state, nested);
  return admitAndExecute(state, nested);
}

/** Stages 8–10, for calls with hooks, an approval or a journal. */
async function governedStages(state: DispatchState, nested: NestedDispatch): Promise<StageResult> {
  const hooks = state.snapshot.hooks;
  if (hooks.preExecute.length > 0 || hooks.guards.length > 0) {
    const refused = await runPreExecuteHooks(state); // 8
    if (refused !== undefined) return { ok: false, error: refused };
  }
  if (needsApproval(state)) {
    const rejected = await requestApproval(state); // 9
    if (rejected !== undefined) return { ok: false, error: rejected };
  }
  if (isJournaled(state)) {
    const replayed = await prepareJournal(state); // 10: a recording replays and skips 11–12
    if (replayed !== undefined) return afterExecute(state, replayed);
  }
  return admitAndExecute(state, nested);
}

/** Stages 11–12. */
function admitAndExecute(state: DispatchState, nested: NestedDispatch): Eventually<StageResult> {
  const refused = admitBeforeDispatch(state); // 11
  if (refused !== undefined) return { ok: false, error: refused };
  const executed = executeTool(state, nested); // 12
  return executed instanceof Promise ? executed.then((result) => afterExecute(state, result)) : afterExecute(state, executed);
}

/** Stages 13–16. */
function afterExecute(state: DispatchState, executed: StageResult): Eventually<StageResult> {
  const split = splitAttachments(state, executed); // 13
  const validated = validateOutput(state, split); // 14
  return validated instanceof Promise ? validated.then((result) => mapAndPostProcess(state, result)) : mapAndPostProcess(state, validated);
}

function mapAndPostProcess(state: DispatchState, result: StageResult): Eventually<StageResult> {
  mapOutput(state, result); // 15
  return state.snapshot.hooks.postExecute.length > 0 ? runPostExecuteHooks(state, result) : result; // 16
}

/** Stages 17–20: every outcome, failures included, passes here exactly once. */
function finish(state: DispatchState, result: StageResult): Eventually<ToolOutcome> {
  const text = contentOf(state, result);
  const bounded = text.length === 0 ? text : boundContent(state, text); // 17
  return typeof bounded === 'string' ? finalizeAndSettle(state, result, bounded) : bounded.then((content) => finalizeAndSettle(state, result, content));
}

function finalizeAndSettle(state: DispatchState, result: StageResult, bounded: string): Eventually<ToolOutcome> {
  const content = finalizeContent(state, result, bounded); // 18
  const settled = settleCall(state, result, content); // 19
  return settled instanceof Promise ? settled.then((outcome) => announce(state, outcome)) : announce(state, settled);
}

function announce(state: DispatchState, outcome: ToolOutcome): ToolOutcome {
  if (state.observed && state.snapshot.bus.has('tool-result')) {
    // 20: observe-only.
    state.snapshot.bus.emit('tool-result', { ...eventBase(state), ok: outcome.ok, code: outcome.ok ? 'OK' : outcome.error.code, durationMs: state.finishedAt - state.startedAt, receipt: outcome.receipt });
  }
  return outcome;
}
