import type { ToolgateEventMap, ToolgateEventName, ToolgateListener } from './event-types.js';

/**
 * A tiny typed emitter. With no listener for an event, `has(name)` is one
 * property read, and the pipeline builds no payload at all. A listener that
 * throws is reported through `observer-error` and never breaks a dispatch;
 * if an `observer-error` listener itself throws, the error is handed to
 * `reportError` (the platform's) or the console, because it must not vanish.
 */
export class EventBus {
  #listeners: { [K in ToolgateEventName]?: ToolgateListener<K>[] } = {};
  /** Count of listeners on any call event; the hot path checks this once. */
  #active = 0;

  get active(): boolean {
    return this.#active > 0;
  }

  has(name: ToolgateEventName): boolean {
    return this.#listeners[name] !== undefined;
  }

  on<TName extends ToolgateEventName>(name: TName, listener: ToolgateListener<TName>): () => void {
    const list = (this.#listeners[name] ?? []);
    // Copy on write: an emit in progress keeps iterating the old array.
    (this.#listeners as Record<string, unknown>)[name] = [...list, listener];
    if (name !== 'observer-error') this.#active += 1;
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const current = (this.#listeners[name] ?? []);
      const next = current.filter((entry) => entry !== listener);
      (this.#listeners as Record<string, unknown>)[name] = next.length === 0 ? undefined : next;
      if (name !== 'observer-error') this.#active -= 1;
    };
  }

  emit<TName extends ToolgateEventName>(name: TName, event: ToolgateEventMap[TName]): void {
    const list = this.#listeners[name];
    if (list === undefined) return;
    for (const listener of list) {
      try {
        listener(event);
      } catch (error) {
        this.#report(name, error);
      }
    }
  }

  #report(name: string, error: unknown): void {
    const list = this.#listeners['observer-error'];
    if (name === 'observer-error' || list === undefined) {
      reportUnhandled(error);
      return;
    }
    for (const listener of list) {
      try {
        listener({ event: name, error, at: Date.now() });
      } catch (nested) {
        reportUnhandled(nested);
      }
    }
  }
}

/** Hand an error nobody listens for to the platform, without breaking the caller. */
function reportUnhandled(error: unknown): void {
  const report = (globalThis as { reportError?: (error: unknown) => void }).reportError;
  if (typeof report === 'function') {
    report(error);
    return;
  }
  // Not rethrown: a listener bug must not crash the process that dispatches tools.
  console.error('toolgate: an event listener threw and no observer-error listener handled it', error);
}
