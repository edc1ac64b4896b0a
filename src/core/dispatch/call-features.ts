import type { RegistrySnapshot } from '../registry/registry-state.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import type { JournalTier } from '../tools/tool-types.js';
import type { DispatchContext } from './dispatch-types.js';

/**
 * Who besides the tool body takes part in a call, decided once when its tool
 * resolves. Every stage that is skipped or taken on one of these reads this
 * answer, so the argument freeze, the gating of stages 8–10 and the receipt
 * can never disagree about whether a hook, an approver or the journal sees
 * the call.
 */
export interface CallFeatures {
  /** `preExecute` hooks or guards judge the call (stage 8). */
  readonly hooked: boolean;
  /** An approval regime applies and the tool's action is governed: stage 9 asks, unless pre-approved. */
  readonly governed: boolean;
  /** The tier the journal records the call at; `none` when no journal records it (stage 10). */
  readonly journalTier: JournalTier;
  /** Code other than the tool body sees the arguments (a hook, an approver, the journal): they are frozen. */
  readonly argumentsShared: boolean;
}

/** A call only its tool body takes part in: the plain path shares this one answer rather than allocate its own. */
const BODY_ONLY: CallFeatures = Object.freeze({ hooked: false, governed: false, journalTier: 'none', argumentsShared: false });

export function callFeatures(snapshot: RegistrySnapshot, context: DispatchContext, tool: CompiledTool): CallFeatures {
  const { hooks } = snapshot;
  const hooked = hooks.preExecute.length > 0 || hooks.guards.length > 0;
  const journalTier = journalTierOf(snapshot, tool);
  // A regime with an ungoverned tool still counts: a rule or a hook may ask, and the approver then sees the arguments.
  const argumentsShared = hooked || hooks.around.length > 0 || hooks.postExecute.length > 0 || context.approval !== undefined || journalTier !== 'none';
  if (!argumentsShared) return BODY_ONLY;
  return { hooked, governed: context.approval !== undefined && tool.actionClass !== undefined, journalTier, argumentsShared };
}

/**
 * The tier the journal sees. When the journal covers every call, a `none`
 * tool is journaled as `record`, or as `effect` when it declares a side
 * effect (anything but `read`, an upstream MCP tool for one): then a crash
 * in the middle of it leaves a claim to resolve, and the same action is not
 * run again behind the operator's back.
 */
function journalTierOf(snapshot: RegistrySnapshot, tool: CompiledTool): JournalTier {
  const journal = snapshot.journal;
  if (journal === undefined) return 'none';
  if (tool.journalTier === 'none') return journal.coverage !== 'all' ? 'none' : tool.policyView.effect === 'read' ? 'record' : 'effect';
  return tool.journalTier;
}
