import { ToolgateError } from '../errors/toolgate-error.js';
import { projectArguments } from '../receipts/project-arguments.js';
import { admitBeforeDispatch } from './admit-before-dispatch.js';
import { refuseIfAborted } from './admit-call.js';
import { boundContent } from './bound-content.js';
import { eventBase, type DispatchState, type Eventually, type ResolvedDispatchState, type StageResult } from './dispatch-state.js';
import type { ToolOutcome } from './dispatch-types.js';
import { executeTool } from './execute-tool.js';
import { finalizeContent } from './finalize-content.js';
import { mapOutput } from './map-output.js';
import { prepareJournal } from './prepare-journal.js';
import { finalContentOf } from './render-content.js';
import { secretKeySet } from './projected-arguments.js';
import { approvalNeed, requestApproval } from './request-approval.js';
import { runDecisionStages, type DecisionResult } from './run-decision-stages.js';
import { runPostExecuteHooks } from './run-post-execute-hooks.js';
import { settleCall } from './settle-call.js';
import { splitAttachments } from './split-attachments.js';
import { releaseCallPlace, takeCallPlace } from './take-call-place.js';
import type { NestedDispatch } from './tool-context.js';
import { validateOutput } from './validate-output.js';

/**
 * The fixed order of a dispatch, stages 0–20. Every stage is its
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
    const outcome = result instanceof Promise ? result.then((settled) => finish(state, settled), (error: unknown) => giveUpPlace(state, error)) : finish(state, result); // 17–20
    return outcome instanceof Promise ? outcome : Promise.resolve(outcome);
  } catch (error) {
    releaseCallPlace(state);
    // Only a caller or configuration mistake throws; it still surfaces as a rejection, never synchronously.
    return Promise.reject(error instanceof Error ? error : new Error('dispatch failed', { cause: error }));
  }
}

/** Stage 0, the decisions (1–8), then the rest. */
function runStages(state: DispatchState, nested: NestedDispatch): Eventually<StageResult> {
  const aborted = refuseIfAborted(state); // 0
  if (aborted !== undefined) return { ok: false, error: aborted };
  const decided = runDecisionStages(state); // 1–8
  return decided instanceof Promise ? decided.then((settled) => afterDecision(settled, nested)) : afterDecision(decided, nested);
}

function afterDecision(decided: DecisionResult, nested: NestedDispatch): Eventually<StageResult> {
  if (decided instanceof ToolgateError) return { ok: false, error: decided };
  if (approvalNeed(decided) !== 'none' || decided.features.journalTier !== 'none') return approveAndClaim(decided, nested);
  const placed = takeCallPlace(decided); // 10, first
  if (placed instanceof Promise) return placed.then((refused) => (refused === undefined ? admitAndExecute(decided, nested) : { ok: false, error: refused }));
  return placed === undefined ? admitAndExecute(decided, nested) : { ok: false, error: placed };
}

/** Stages 9–10, for calls with an approval or a journal. */
async function approveAndClaim(state: ResolvedDispatchState, nested: NestedDispatch): Promise<StageResult> {
  if (approvalNeed(state) !== 'none') {
    const rejected = await requestApproval(state); // 9
    if (rejected !== undefined) return { ok: false, error: rejected };
  }
  const refused = await takeCallPlace(state); // 10, first
  if (refused !== undefined) return { ok: false, error: refused };
  if (state.features.journalTier !== 'none') {
    const replayed = await prepareJournal(state); // 10: a recording replays and skips 11–12
    if (replayed !== undefined) return afterExecute(state, replayed);
  }
  return admitAndExecute(state, nested);
}

/** Stages 11–12. */
function admitAndExecute(state: ResolvedDispatchState, nested: NestedDispatch): Eventually<StageResult> {
  const refused = admitBeforeDispatch(state); // 11
  if (refused !== undefined) return { ok: false, error: refused };
  const executed = executeTool(state, nested); // 12
  return executed instanceof Promise ? executed.then((result) => afterExecute(state, result)) : afterExecute(state, executed);
}

/** Stages 13–16. */
function afterExecute(state: ResolvedDispatchState, executed: StageResult): Eventually<StageResult> {
  const split = splitAttachments(state, executed); // 13
  const validated = validateOutput(state, split); // 14
  return validated instanceof Promise ? validated.then((result) => mapAndPostProcess(state, result)) : mapAndPostProcess(state, validated);
}

function mapAndPostProcess(state: ResolvedDispatchState, result: StageResult): Eventually<StageResult> {
  mapOutput(state, result); // 15
  return state.snapshot.hooks.postExecute.length > 0 ? runPostExecuteHooks(state, result) : result; // 16
}

/** Stages 17–20: every outcome, failures included, passes here exactly once. The call's place is given back once its result is bounded. */
function finish(state: DispatchState, result: StageResult): Eventually<ToolOutcome> {
  let bounded: Eventually<string>;
  try {
    const text = finalContentOf(state, result);
    bounded = text.length === 0 ? text : boundContent(state, text); // 17
  } catch (error) {
    giveUpPlace(state, error);
  }
  if (typeof bounded !== 'string') {
    return bounded.then(
      (content) => {
        releaseCallPlace(state);
        return finalizeAndSettle(state, result, content);
      },
      (error: unknown) => giveUpPlace(state, error),
    );
  }
  releaseCallPlace(state);
  return finalizeAndSettle(state, result, bounded);
}

/** A stage threw where none should: the place is given back, and the error goes on. */
function giveUpPlace(state: DispatchState, error: unknown): never {
  releaseCallPlace(state);
  throw error;
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
