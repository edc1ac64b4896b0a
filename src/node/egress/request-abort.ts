import { EventEmitter } from 'node:events';

/**
 * The abort source of one outbound request: the caller's signal and our own
 * deadline, fused. undici accepts an EventEmitter with `aborted` and
 * `reason` as its signal, and that costs a fraction of what Node 20 charges
 * for `AbortSignal.timeout` (a 30 s timer and a weak reference per request,
 * alive until it fires) and `AbortSignal.any`. `dispose` releases the timer
 * and the listener on the caller's signal as soon as the exchange ends.
 */
export class RequestAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  /** True when our deadline, not the caller, ended the request. */
  timedOut = false;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #caller: AbortSignal | undefined;
  readonly #relay = (): void => this.#abort(this.#caller?.reason);

  constructor(caller: AbortSignal | undefined, timeoutMs: number) {
    super();
    this.#caller = caller;
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#abort(new DOMException('The request deadline passed.', 'TimeoutError'));
    }, timeoutMs);
    if (caller === undefined) return;
    if (caller.aborted) this.#relay();
    else caller.addEventListener('abort', this.#relay, { once: true });
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener('abort', this.#relay);
  }

  #abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}
