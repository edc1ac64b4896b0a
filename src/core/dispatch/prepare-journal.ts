import { displayAction } from '../action/display-action.js';
import { ToolgateError } from '../errors/toolgate-error.js';
import { ReplayMissError, ToolExecutionError, ToolUnavailableError } from '../errors/tool-errors.js';
import type { JournalPrepareResult, RecordedResult } from '../journal/journal-types.js';
import { ensureDigests } from './ensure-digests.js';
import type { ResolvedDispatchState, StageResult } from './dispatch-state.js';
import { projectedArguments } from './projected-arguments.js';
import { restoreAttachments } from './restore-attachments.js';

/**
 * Stage 10: the durable effect bracket opens. An effect-tier call claims its
 * idempotency key (action digest + call id) before the host is touched; a
 * key that already settled replays its recorded result instead of running,
 * its media restored from the host's media store.
 */
export async function prepareJournal(state: ResolvedDispatchState): Promise<StageResult | undefined> {
  const journal = state.snapshot.journal;
  const tool = state.tool;
  const tier = state.features.journalTier;
  if (journal === undefined || tier === 'none') return undefined;
  const digests = await ensureDigests(state);
  if (!('actionDigest' in digests)) return { ok: false, error: digests };
  const { inputDigest, actionDigest } = digests;
  let prepared: JournalPrepareResult;
  try {
    prepared = await journal.prepare({
      key: journalKey(actionDigest, state.call.callId),
      callId: state.call.callId,
      runId: state.context.runId,
      toolName: tool.name,
      toolVersion: tool.version,
      agent: state.agent,
      actionDigest,
      inputDigest,
      arguments: projectedArguments(state),
      // Only a claim keeps it, for the operator who resolves one a crash left open.
      ...(tier === 'effect' && state.action !== undefined ? { target: displayAction(state.action) } : {}),
      tier,
      startedAt: state.startedAt,
    });
  } catch (error) {
    // Fail closed: without a durable claim the body must not run. (A journal refuses on purpose with `refused`.)
    return { ok: false, error: new ToolUnavailableError(tool.key, 'journal', 'the journal could not record the call', error) };
  }
  if (prepared.status === 'refused') return { ok: false, error: prepared.error };
  if (prepared.status === 'claimed') {
    state.claim = prepared.claim;
    return undefined;
  }
  // A recording without its value, or whose media cannot be restored, is refused like a replay miss: audited, and the body never runs.
  if (prepared.recorded.valueNotKept === true) return { ok: false, error: new ReplayMissError(tool.key, 'value_not_kept') };
  const restored = await restoreAttachments({ tool: tool.key, recorded: prepared.recorded, mediaStore: state.snapshot.host.mediaStore });
  if (!restored.ok) return { ok: false, error: restored.error };
  state.attachments = restored.attachments;
  state.replayed = true;
  return recordedToResult(tool.key, prepared.recorded);
}

export function journalKey(actionDigest: string, callId: string): string {
  return `${actionDigest}:${callId}`;
}

/** Rebuild a stage result from a recording; a recorded failure comes back as a typed error of the same code. */
export function recordedToResult(toolKey: string, recorded: RecordedResult): StageResult {
  if (recorded.ok) return { ok: true, value: recorded.value, content: recorded.content };
  const error = recorded.error;
  const restored =
    error === undefined
      ? new ToolExecutionError(toolKey)
      : Object.assign(new ToolgateError(error.code as ToolgateError['code'], error.message, { tool: toolKey }), error.reason === undefined ? {} : { reason: error.reason });
  return { ok: false, error: restored, content: recorded.content };
}
