import type { ToolgateError } from '../errors/toolgate-error.js';
import type { MediaHandle } from '../host/tool-host.js';
import { buildReceipt } from '../receipts/build-receipt.js';
import type { ToolReceipt } from '../receipts/receipt-types.js';
import { markUntrusted, unwrapUntrusted, type Untrusted } from '../untrusted/untrusted.js';
import { ensureDigests } from './ensure-digests.js';
import { isResolved, type DispatchState, type StageFailure, type StageResult, type StageSuccess } from './dispatch-state.js';
import type { ToolFailure, ToolOutcome, ToolSuccess } from './dispatch-types.js';

let invocationCounter = 0;

/**
 * The two outcome classes. The receipt is built on first read (or eagerly
 * when a journal or a listener needs it), so the plain path never pays for
 * it; the call's state stays behind private fields, out of sight of a
 * serialiser or a log line.
 *
 * Public fields are `declare`d and assigned in the constructor, and neither
 * class extends a base: a class field, or a base class with fields, is
 * defined through V8's instance initializer, a step of its own on every
 * construction that costs a measurable share of the plain path's budget.
 */
export class DispatchSuccess implements ToolSuccess {
  declare readonly ok: true;
  declare readonly callId: string;
  declare readonly toolName: string;
  declare readonly content: Untrusted<string>;
  declare readonly contexts: readonly Untrusted<string>[] | undefined;
  declare readonly value: unknown;
  declare readonly mapped: Readonly<Record<string, unknown>> | undefined;
  declare readonly attachments: readonly Untrusted<MediaHandle>[] | undefined;
  declare readonly contentReplaced: boolean;
  readonly #state: DispatchState;
  readonly #result: StageSuccess;
  #receipt: ToolReceipt | undefined;

  constructor(state: DispatchState, result: StageSuccess, content: string) {
    // In the order the fields always had: a serialised outcome reads the same.
    this.callId = state.call.callId;
    this.toolName = toolNameOf(state);
    this.content = markUntrusted(content);
    this.contexts = markedContexts(state);
    this.ok = true;
    this.value = result.value;
    this.mapped = state.mapped;
    this.attachments = state.attachments?.map((handle) => markUntrusted(handle));
    this.contentReplaced = state.contentReplaced;
    this.#state = state;
    this.#result = result;
  }

  get receipt(): ToolReceipt {
    return (this.#receipt ??= receiptOf(this.#state, this.#result, this.content));
  }
}

/** A call some stage refused, or whose body or result failed. */
export class DispatchFailure implements ToolFailure {
  declare readonly ok: false;
  declare readonly callId: string;
  declare readonly toolName: string;
  declare readonly content: Untrusted<string>;
  declare readonly contexts: readonly Untrusted<string>[] | undefined;
  declare readonly error: ToolgateError;
  readonly #state: DispatchState;
  readonly #result: StageFailure;
  #receipt: ToolReceipt | undefined;

  constructor(state: DispatchState, result: StageFailure, content: string) {
    this.callId = state.call.callId;
    this.toolName = toolNameOf(state);
    this.content = markUntrusted(content);
    this.contexts = markedContexts(state);
    this.ok = false;
    this.error = result.error;
    this.#state = state;
    this.#result = result;
  }

  get receipt(): ToolReceipt {
    return (this.#receipt ??= receiptOf(this.#state, this.#result, this.content));
  }
}

function toolNameOf(state: DispatchState): string {
  return state.tool?.key ?? state.call.name;
}

function markedContexts(state: DispatchState): readonly Untrusted<string>[] | undefined {
  return state.contexts?.map((context) => markUntrusted(context));
}

function receiptOf(state: DispatchState, result: StageResult, content: Untrusted<string>): ToolReceipt {
  return buildReceipt(state, result, unwrapUntrusted(content), invocationId(state));
}

/** The outcome of a settled stage result: a success or a failure, each its own type. */
export function outcomeOf(state: DispatchState, result: StageResult, content: string): DispatchSuccess | DispatchFailure {
  if (!result.ok) return new DispatchFailure(state, result, content);
  const outcome = new DispatchSuccess(state, result, content);
  if (state.valueJson !== undefined) renderedValues.set(outcome, state.valueJson);
  return outcome;
}

/** The value's JSON text each outcome's call rendered (`DispatchState.valueJson`), by the outcome: one call's, never another's. */
const renderedValues = new WeakMap<ToolOutcome, string>();

/**
 * The JSON text of an outcome's value as its call rendered it for the model,
 * when the value was long and its content is that text: a server that sends
 * the value as its structured result measures and writes this text instead
 * of building it again. Undefined for any other outcome.
 */
export function renderedValueJson(outcome: ToolOutcome): string | undefined {
  return renderedValues.get(outcome);
}

// Unique per process without a per-call UUID: the call id plus a counter.
function invocationId(state: DispatchState): string {
  invocationCounter = (invocationCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${state.call.callId}#${state.startedAt.toString(36)}.${invocationCounter.toString(36)}`;
}

/**
 * Stage 19: mark the content untrusted, settle the journal, build the
 * outcome. A claim whose body never started is discarded: nothing happened.
 * A journaled call refused before it could claim leaves an audit event.
 * Without a journal or a receipt listener this is synchronous.
 */
export function settleCall(state: DispatchState, result: StageResult, content: string): ToolOutcome | Promise<ToolOutcome> {
  state.finishedAt = Date.now();
  const tier = state.features?.journalTier ?? 'none';
  const journaled = tier !== 'none' && !state.replayed;
  const needsReceipt = journaled || (state.observed && state.snapshot.bus.has('tool-result'));
  if (!needsReceipt && state.claim === undefined) return outcomeOf(state, result, content);
  return settleDurably(state, result, content, needsReceipt, tier);
}

async function settleDurably(state: DispatchState, result: StageResult, content: string, needsReceipt: boolean, tier: 'none' | 'record' | 'effect'): Promise<ToolOutcome> {
  // Digests only when a receipt is built now and the arguments were assembled (a value with no
  // JSON form simply leaves the receipt without them; the call already failed or ran).
  if (needsReceipt && isResolved(state) && state.effectiveArgs !== undefined) await ensureDigests(state);
  const outcome = outcomeOf(state, result, content);
  const journal = state.snapshot.journal;
  if (journal !== undefined && state.claim !== undefined && !state.bodyStarted) {
    await journal.discard(state.claim).catch((error: unknown) => console.warn('toolgate: discarding a journal claim failed; it stays unresolved', error));
  } else if (journal !== undefined && tier !== 'none' && !state.replayed && state.claim !== undefined) {
    const error = result.ok ? undefined : { code: result.error.code, message: result.error.message, name: result.error.name, ...reasonOf(result.error) };
    await journal
      .settle(state.claim, { ok: result.ok, value: result.ok ? result.value : undefined, content, ...(error === undefined ? {} : { error }), ...attachmentsOf(outcome.receipt), receipt: outcome.receipt, valueJson: state.valueJson })
      .catch((settleError: unknown) => console.warn('toolgate: settling a journal claim failed; it stays unresolved', settleError));
  } else if (journal !== undefined && tier !== 'none' && !state.replayed) {
    // Refused before stage 10 (policy, approval, validation, an unresolved claim): audited as a
    // chained event, never as a recorded result a retry would replay once the refusal is lifted.
    await journal
      .append({ type: 'call-refused', at: state.finishedAt, data: outcome.receipt })
      .catch((appendError: unknown) => console.warn('toolgate: journaling a refused call failed', appendError));
  }
  return outcome;
}

/** The receipt's attachments, recorded beside it: a replay restores them only while the two agree. */
function attachmentsOf(receipt: ToolReceipt): { attachments?: readonly MediaHandle[] } {
  return receipt.attachments === undefined ? {} : { attachments: receipt.attachments };
}

function reasonOf(error: ToolgateError): { reason?: string } {
  const reason = (error as { reason?: unknown }).reason;
  return typeof reason === 'string' ? { reason } : {};
}
