import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolHostCallOptions } from '../host/tool-host.js';
import type { NestedCall, ToolDispatchContext } from '../tools/tool-types.js';
import type { DispatchState } from './dispatch-state.js';
import type { ToolOutcome } from './dispatch-types.js';
import { outOfPlace } from './take-call-place.js';

/** Dispatches a nested call with the given parent; supplied by the registry view. */
export type NestedDispatch = (state: DispatchState, call: NestedCall, signal: AbortSignal | undefined) => Promise<ToolOutcome>;

/**
 * What a tool body receives as its third argument. One allocation per call.
 * `signal` is `declare`d and assigned rather than a class field, which V8
 * defines through a separate initializer step on every construction.
 */
export class ToolContext implements ToolDispatchContext {
  readonly #state: DispatchState;
  readonly #nested: NestedDispatch;
  declare readonly signal: AbortSignal | undefined;

  constructor(state: DispatchState, signal: AbortSignal | undefined, nested: NestedDispatch) {
    this.#state = state;
    this.#nested = nested;
    this.signal = signal;
  }
  get callId(): string {
    return this.#state.call.callId;
  }
  get toolName(): string {
    return this.#state.tool?.key ?? this.#state.call.name;
  }
  get agent(): string | undefined {
    return this.#state.agent;
  }
  get config(): Readonly<Record<string, unknown>> {
    return this.#state.context.config?.values ?? EMPTY;
  }
  get invokeAgent(): ToolDispatchContext['invokeAgent'] {
    const delegate = this.#state.context.invokeAgent;
    if (delegate === undefined) return undefined;
    // The other agent's calls take places of their own on this registry: this call waits on them out of its place.
    return (agent, input, signal) => outOfPlace(this.#state, () => delegate(agent, input, signal));
  }
  get hostCallOptions(): ToolHostCallOptions | undefined {
    return this.#state.context.hostCallOptions;
  }
  get action(): ResolvedAction | undefined {
    return this.#state.action;
  }
  dispatchNested(call: NestedCall): Promise<ToolOutcome> {
    const own = call.signal;
    const signal = own === undefined || own === this.signal ? this.signal : this.signal === undefined ? own : AbortSignal.any([this.signal, own]);
    return this.#nested(this.#state, call, signal);
  }
  deferContext(context: string): void {
    (this.#state.contexts ??= []).push(String(context));
  }
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});
