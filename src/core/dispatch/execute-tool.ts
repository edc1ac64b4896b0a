import { ToolgateError } from '../errors/toolgate-error.js';
import { ToolCancelledError, ToolExecutionError } from '../errors/tool-errors.js';
import { composeAround } from '../hooks/compose-around.js';
import type { ToolDispatchExecution } from '../hooks/hook-types.js';
import { timeout } from '../hooks/timeout.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import { eventBase, type DispatchState, type ResolvedDispatchState, type StageResult } from './dispatch-state.js';
import { hookCallView } from './hook-call-view.js';
import { ToolContext, type NestedDispatch } from './tool-context.js';

/**
 * Stage 12: the one side effect. `around` wrappers (first = outermost), then
 * the tool's own timeout, then the body — with the caller's signal re-fused
 * immediately before it, so a wrapper can replace the signal but never drop
 * the caller's cancellation. The outcome waits for the body to settle.
 */
export function executeTool(state: ResolvedDispatchState, nested: NestedDispatch): StageResult | Promise<StageResult> {
  const tool = state.tool;
  const callerSignal = state.context.signal;
  const wrappers = state.snapshot.hooks.around;
  // Composed outside the try: a wrapper that returns no function is a configuration mistake and throws.
  const chain =
    wrappers.length === 0 && tool.timeoutMs === undefined
      ? undefined
      : composeAround(tool.timeoutMs === undefined ? wrappers : [...wrappers, timeout(tool.timeoutMs)], (execution) =>
          Promise.resolve(runBody(state, tool, nested, fuseSignals(callerSignal, execution.signal))),
        );
  if (state.observed && state.snapshot.bus.has('tool-call-started')) state.snapshot.bus.emit('tool-call-started', eventBase(state));
  let returned: unknown;
  try {
    // With no wrapper the body runs directly: no execution view, no signal fusion, no closure.
    returned = chain === undefined ? runBody(state, tool, nested, callerSignal) : chain(executionView(state, tool, callerSignal));
  } catch (error) {
    return settleBody(state, { ok: false, error: classifyFailure(state, tool, error) });
  }
  // A synchronous body settles now; a promise (or any thenable) settles when the body does — never earlier.
  if (!isThenable(returned)) return settleBody(state, succeeded(state, tool, returned));
  return Promise.resolve(returned).then(
    (value) => settleBody(state, succeeded(state, tool, value)),
    (error: unknown) => settleBody(state, { ok: false, error: classifyFailure(state, tool, error) }),
  );
}

/** Only a success can be replaced by ABORTED once the body started. */
function succeeded(state: DispatchState, tool: CompiledTool, value: unknown): StageResult {
  return state.context.signal?.aborted === true && state.bodyStarted ? { ok: false, error: new ToolCancelledError(tool.key, 'after-dispatch') } : { ok: true, value };
}

function settleBody(state: DispatchState, result: StageResult): StageResult {
  if (state.observed) emitFinished(state, result);
  return result;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Call the tool body with the caller's signal re-fused. Failures are
 * classified here, inside the wrappers, so `retry` and `metrics` see the
 * typed error (a raw throw is a retryable EXECUTION_FAILED).
 */
function runBody(state: DispatchState, tool: CompiledTool, nested: NestedDispatch, signal: AbortSignal | undefined): unknown {
  if (state.context.signal?.aborted === true) throw new ToolCancelledError(tool.key, state.bodyStarted ? 'after-dispatch' : 'before-dispatch');
  state.bodyStarted = true;
  let returned: unknown;
  try {
    returned = tool.definition.dispatch(state.effectiveArgs, state.snapshot.host, new ToolContext(state, signal, nested));
  } catch (error) {
    throw classifyFailure(state, tool, error);
  }
  return isThenable(returned)
    ? Promise.resolve(returned).catch((error: unknown) => {
        throw classifyFailure(state, tool, error);
      })
    : returned;
}

function executionView(state: DispatchState, tool: CompiledTool, signal: AbortSignal | undefined): ToolDispatchExecution {
  return {
    ...hookCallView(state, signal),
    tool: {
      name: tool.name,
      version: tool.version,
      policyView: tool.policyView,
      actionClass: tool.actionClass,
      idempotent: tool.definition.facts?.idempotent === true || tool.policyView.readOnly,
    },
    attempt: 1,
  };
}

/** The caller's signal always wins a place: a wrapper's replacement can only add reasons to abort. */
function fuseSignals(caller: AbortSignal | undefined, current: AbortSignal | undefined): AbortSignal | undefined {
  if (current === undefined || current === caller) return caller;
  if (caller === undefined) return current;
  return AbortSignal.any([caller, current]);
}

/**
 * A typed error passes through verbatim (a host's own denial stays fatal);
 * an abort-origin failure is a cancellation; anything else is a retryable
 * `ToolExecutionError`, recoverable only for an idempotent read.
 */
function classifyFailure(state: DispatchState, tool: CompiledTool, error: unknown): ToolgateError {
  if (ToolgateError.isInstance(error)) return error;
  const signal = state.context.signal;
  if (signal?.aborted === true && (error === signal.reason || isAbortError(error))) {
    return new ToolCancelledError(tool.key, state.bodyStarted ? 'after-dispatch' : 'before-dispatch');
  }
  return new ToolExecutionError(tool.key, { cause: error, recoverable: isIdempotentRead(tool) });
}

function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** No fsWrite, process, egress or os side effect. */
export function isIdempotentRead(tool: CompiledTool): boolean {
  const policy = tool.policyView.policy;
  return !policy.fsWrite && !policy.spawnsProcess && policy.egress === undefined && !policy.os && tool.policyView.effect === 'read';
}

function emitFinished(state: DispatchState, result: StageResult): void {
  const bus = state.snapshot.bus;
  const durationMs = Date.now() - state.startedAt;
  if (result.ok) {
    if (bus.has('tool-call-finished')) bus.emit('tool-call-finished', { ...eventBase(state), durationMs });
  } else if (bus.has('tool-call-failed')) {
    bus.emit('tool-call-failed', { ...eventBase(state), durationMs, error: result.error.toJSON() });
  }
}
