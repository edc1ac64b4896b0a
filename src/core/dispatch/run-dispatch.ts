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
import { renderContent } from './render-content.js';
import { needsApproval, requestApproval, secretKeySet } from './request-approval.js';
import { resolveTool } from './resolve-tool.js';
import { runPostExecuteHooks } from './run-post-execute-hooks.js';
import { runPreExecuteHooks } from './run-pre-execute-hooks.js';
import { settleCall } from './settle-call.js';
import { splitAttachments } from './split-attachments.js';
import type { NestedDispatch } from './tool-context.js';
import { validateArguments } from './validate-arguments.js';
import { validateOutput } from './validate-output.js';

/**
 * The fixed order of a dispatch (design.md, stages 0–20). Every stage is its
 * own function in this folder; this file only sequences them. A failure at
 * any stage skips to bounding, finalization and settlement (17–20), so every
 * call yields exactly one outcome. Synchronous stages are not awaited: the
 * plain path pays for one await, the tool body.
 */
export async function runDispatch(state: DispatchState, nested: NestedDispatch): Promise<ToolOutcome> {
  if (state.observed && state.snapshot.bus.has('tool-call-requested')) {
    state.snapshot.bus.emit('tool-call-requested', { ...eventBase(state), toolInput: projectArguments(state.call.rawArguments, { secretKeys: secretKeySet(state) }) });
  }
  const result = await runStages(state, nested);
  const text = result.content ?? (result.ok ? renderContent(result.value) : result.error.message);
  const bounded = text.length === 0 ? text : await boundContent(state, text); // 17
  const content = finalizeContent(state, result, bounded); // 18
  const outcome = await settleCall(state, result, content); // 19
  if (state.observed && state.snapshot.bus.has('tool-result')) {
    // 20: observe-only.
    state.snapshot.bus.emit('tool-result', { ...eventBase(state), ok: outcome.ok, code: outcome.ok ? 'OK' : outcome.error.code, durationMs: state.finishedAt - state.startedAt, receipt: outcome.receipt });
  }
  return outcome;
}

async function runStages(state: DispatchState, nested: NestedDispatch): Promise<StageResult> {
  const failure =
    refuseIfAborted(state) ?? // 0
    refuseProviderExecuted(state) ?? // 1
    resolveTool(state) ?? // 2
    checkGrant(state) ?? // 3
    decideIdentityPolicy(state) ?? // 4
    assembleArguments(state); // 5
  if (failure !== undefined) return { ok: false, error: failure };

  const validation = validateArguments(state); // 6
  const invalid = validation instanceof Promise ? await validation : validation;
  if (invalid !== undefined) return { ok: false, error: invalid };

  const denied = decideArgumentPolicy(state); // 7
  if (denied !== undefined) return { ok: false, error: denied };

  const hooks = state.snapshot.hooks;
  if (hooks.preExecute.length > 0 || hooks.guards.length > 0) {
    const refused = await runPreExecuteHooks(state); // 8
    if (refused !== undefined) return { ok: false, error: refused };
  }

  if (needsApproval(state)) {
    const rejected = await requestApproval(state); // 9
    if (rejected !== undefined) return { ok: false, error: rejected };
  }

  let result: StageResult | undefined;
  if (isJournaled(state)) result = await prepareJournal(state); // 10: a recording replays and skips 11–12
  if (result === undefined) {
    const refused = admitBeforeDispatch(state); // 11
    if (refused !== undefined) return { ok: false, error: refused };
    result = await executeTool(state, nested); // 12
  }

  result = splitAttachments(state, result); // 13
  const validated = validateOutput(state, result); // 14
  result = validated instanceof Promise ? await validated : validated;
  mapOutput(state, result); // 15
  if (hooks.postExecute.length > 0) result = await runPostExecuteHooks(state, result); // 16
  return result;
}
