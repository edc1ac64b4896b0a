import type { ToolHostCapability } from '../core/internal.js';
import type { FakeHostCall, FakeScript } from './create-fake-host.js';

/** Answer one capability call: record it, then take its script's answer, or the fallback when it has none. */
export type ScriptedInvoke = <T>(capability: ToolHostCapability, method: string, args: unknown[], signal: AbortSignal | undefined, fallback: () => T | Promise<T>) => Promise<T>;

/**
 * The fake host's one way to answer: every call is recorded in `calls`; the
 * queue for `capability.method` gives the next answer (the last one
 * repeats), which may wait, throw, compute from the arguments or return a
 * value; with no script, the fallback answers.
 */
export function createScriptedInvoke(calls: FakeHostCall[], scripts: Map<string, FakeScript[]>): ScriptedInvoke {
  return async <T>(capability: ToolHostCapability, method: string, args: unknown[], signal: AbortSignal | undefined, fallback: () => T | Promise<T>): Promise<T> => {
    calls.push(Object.freeze({ capability, method, args: Object.freeze([...args]), at: Date.now() }));
    const queue = scripts.get(`${capability}.${method}`);
    const script = queue === undefined ? undefined : queue.length > 1 ? queue.shift() : queue[0];
    if (script?.delayMs !== undefined) await delay(script.delayMs, signal);
    if (signal?.aborted === true) throw abortError(signal);
    if (script === undefined) return fallback();
    // A fault is thrown as scripted, non-Error values included: hosts in the wild throw those too.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    if (script.fault !== undefined) throw script.fault;
    if (script.respond !== undefined) return script.respond(...args) as T;
    return script.result as T;
  };
}

/** The signal's own reason when it is an error (the default DOMException is), else an AbortError carrying it. */
function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted', { cause: signal.reason }), { name: 'AbortError' });
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortError(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
