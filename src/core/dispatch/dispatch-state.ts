import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import type { SpilledResult } from '../host/tool-host.js';
import type { JournalClaim } from '../journal/journal-types.js';
import type { MatchedRule, PolicyDecision } from '../policy/policy-types.js';
import type { ReceiptApproval } from '../receipts/receipt-types.js';
import type { RegistrySnapshot, ScopeState } from '../registry/registry-state.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import type { PolicyTarget } from '../tools/tool-types.js';
import type { InvocationDigests } from '../digest/invocation-digests.js';
import type { MediaHandle } from '../host/tool-host.js';
import { callFeatures, type CallFeatures } from './call-features.js';
import type { DispatchContext } from './dispatch-types.js';

/** A stage's value now, or later when it had I/O to do. */
export type Eventually<T> = T | Promise<T>;

/** Who asked: a model (or workflow) directly, or a Code Mode script through `run_code`. */
export type DispatchOrigin = 'model' | 'nested';

/** The admitted call: a snapshot taken at entry, never the caller's mutable object. */
export interface AdmittedCall {
  readonly callId: string;
  readonly name: string;
  readonly rawArguments: unknown;
  readonly providerExecuted: boolean;
}

/**
 * The record of one call. Stages fill it in order; the order itself lives in
 * `run-dispatch.ts`. Until stage 2 the call has no tool: stages before it,
 * and the closing stages every outcome passes, take this type; every stage
 * in between takes a `ResolvedDispatchState`.
 */
export interface DispatchState {
  readonly snapshot: RegistrySnapshot;
  readonly scope: ScopeState | undefined;
  readonly origin: DispatchOrigin;
  readonly call: AdmittedCall;
  readonly context: DispatchContext;
  readonly agent: string | undefined;
  readonly startedAt: number;
  /** Whether any listener was attached when the call was admitted. */
  readonly observed: boolean;
  /** The call that dispatched this nested one: a nested call runs in the place its parent, or theirs, holds. */
  readonly parent: DispatchState | undefined;
  /** Whether this call holds one of those places now (taken at stage 11, given back once its result is bounded). */
  holdsPlace: boolean;
  tool: CompiledTool | undefined;
  /** Who besides the body takes part, decided when the tool resolves. */
  features: CallFeatures | undefined;
  /**
   * Mapped or configured values stage 5 never walked (a rebuilding validator takes them): their
   * JSON form and size are checked with the digests. Written by stage 6.
   */
  argsUnchecked: boolean;
  /**
   * The complete effective arguments, written only by stage 6: once they are known to have a JSON
   * form, what a refusal's receipt shows; once accepted, validated (and frozen when anyone besides
   * the body sees them).
   */
  effectiveArgs: unknown;
  /** Their display projection, once computed (see `projectedArguments`). */
  projectedArgs: unknown;
  target: PolicyTarget | undefined;
  /** What the call will do, resolved once from the target (stage 7): policy, approval, digest, receipt and host read it. */
  action: ResolvedAction | undefined;
  /** The strictest decision so far (allow → ask → deny). */
  decision: PolicyDecision | undefined;
  /** The rules that matched so far: replaced, never pushed to, so a receipt that took the list keeps it. */
  matched: readonly MatchedRule[];
  /** Why approval is needed beyond the governed class. */
  askedBy: 'rule' | 'hook' | undefined;
  digests: InvocationDigests | undefined;
  approval: ReceiptApproval;
  claim: JournalClaim | undefined;
  replayed: boolean;
  bodyStarted: boolean;
  attachments: MediaHandle[] | undefined;
  contexts: string[] | undefined;
  mapped: Record<string, unknown> | undefined;
  spill: SpilledResult | undefined;
  /** A `postExecute` hook or `finalizeContent` wrote the content: it is not the value's rendering. */
  contentReplaced: boolean;
  /** The value's JSON text as stage 17 rendered it for this call, when it was long (`finalContentOf`). */
  valueJson: string | undefined;
  finishedAt: number;
}

/** The call once stage 2 resolved its tool: every stage up to execution has one, and the call's features. */
export interface ResolvedDispatchState extends DispatchState {
  readonly tool: CompiledTool;
  readonly features: CallFeatures;
}

/** Stage 2's result recorded: the tool, and the features that follow from it, fixed for the rest of the call. */
export function resolveDispatchState(state: DispatchState, tool: CompiledTool): ResolvedDispatchState {
  state.tool = tool;
  state.features = callFeatures(state.snapshot, state.context, tool);
  return state as ResolvedDispatchState;
}

/** Whether stage 2 resolved the call's tool: a call refused before it has none. */
export function isResolved(state: DispatchState): state is ResolvedDispatchState {
  return state.features !== undefined;
}

/** A stage's result when the body ran and its result holds so far. */
export interface StageSuccess {
  readonly ok: true;
  value: unknown;
  content?: string;
}

/** A stage's result when the call was refused or failed. */
export interface StageFailure {
  readonly ok: false;
  readonly error: ToolgateError;
  content?: string;
}

/** What stages 12–16 produce, before bounding. */
export type StageResult = StageSuccess | StageFailure;

export function createDispatchState(
  snapshot: RegistrySnapshot,
  scope: ScopeState | undefined,
  call: AdmittedCall,
  context: DispatchContext,
  origin: DispatchOrigin,
  parent?: DispatchState,
): DispatchState {
  return {
    snapshot,
    scope,
    origin,
    call,
    context,
    agent: context.agent ?? scope?.agent,
    startedAt: Date.now(),
    observed: snapshot.bus.active,
    parent,
    holdsPlace: false,
    tool: undefined,
    features: undefined,
    argsUnchecked: false,
    effectiveArgs: undefined,
    projectedArgs: undefined,
    target: undefined,
    action: undefined,
    decision: undefined,
    matched: NO_RULES,
    askedBy: undefined,
    digests: undefined,
    approval: NOT_REQUIRED,
    claim: undefined,
    replayed: false,
    bodyStarted: false,
    attachments: undefined,
    contexts: undefined,
    mapped: undefined,
    spill: undefined,
    contentReplaced: false,
    valueJson: undefined,
    finishedAt: 0,
  };
}

const NOT_REQUIRED: ReceiptApproval = Object.freeze({ outcome: 'not-required' });
const NO_RULES: readonly MatchedRule[] = Object.freeze([]);

/** Shared fields of every call event. */
export function eventBase(state: DispatchState): { callId: string; toolName: string; agent: string | undefined; parent: string | undefined; at: number } {
  return { callId: state.call.callId, toolName: state.tool?.key ?? state.call.name, agent: state.agent, parent: state.context.parent, at: Date.now() };
}
