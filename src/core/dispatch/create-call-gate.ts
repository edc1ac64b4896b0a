/** At most `limit` holders at once; the others wait their turn, first come first served. */
export interface CallGate {
  /** Take a free place now, if there is one: the common case starts its call with no await. */
  tryEnter(): boolean;
  /** Wait for a place: true once one is taken, false when `signal` aborts first (the place is then not taken). */
  enter(signal: AbortSignal | undefined): Promise<boolean>;
  /** Give back a place `enter` granted. */
  leave(): void;
  /** How many wait for a place now. */
  readonly waiting: number;
}

interface Waiter {
  readonly signal: AbortSignal | undefined;
  readonly resolve: (admitted: boolean) => void;
}

/** The abort listener a signal carries while calls wait on it, and how many do. */
interface Watch {
  readonly onAbort: () => void;
  waiters: number;
}

/**
 * A counting semaphore: one script's nested calls, or every call a
 * registry runs. The bound holds however many calls start at once: a
 * waiting call holds nothing but its place in the queue, and calls whose
 * signal aborted leave the queue without ever running. One abort listener
 * per signal, not per waiter (a script queues hundreds of calls on one
 * signal), and only while a call waits on it: a registry sees a new signal
 * with every call, and keeps none of them once their calls are admitted.
 */
export function createCallGate(limit: number): CallGate {
  let active = 0;
  const queue: Waiter[] = [];
  const watched = new Map<AbortSignal, Watch>();
  const drop = (signal: AbortSignal): void => {
    watched.delete(signal);
    for (let index = queue.length - 1; index >= 0; index -= 1) {
      const waiter = queue[index] as Waiter;
      if (waiter.signal !== signal) continue;
      queue.splice(index, 1);
      waiter.resolve(false);
    }
  };
  const unwatch = (signal: AbortSignal | undefined): void => {
    const watch = signal === undefined ? undefined : watched.get(signal);
    if (signal === undefined || watch === undefined || (watch.waiters -= 1) > 0) return;
    watched.delete(signal);
    signal.removeEventListener('abort', watch.onAbort);
  };
  const tryEnter = (): boolean => {
    if (active >= limit) return false;
    active += 1;
    return true;
  };
  return {
    tryEnter,
    enter(signal) {
      if (signal?.aborted === true) return Promise.resolve(false);
      if (tryEnter()) return Promise.resolve(true);
      if (signal !== undefined) {
        const watch = watched.get(signal);
        if (watch !== undefined) watch.waiters += 1;
        else {
          const onAbort = (): void => drop(signal);
          watched.set(signal, { onAbort, waiters: 1 });
          signal.addEventListener('abort', onAbort, { once: true });
        }
      }
      return new Promise<boolean>((resolve) => queue.push({ signal, resolve }));
    },
    leave() {
      const next = queue.shift();
      // The place passes straight to the next waiter: `active` stays as it is.
      if (next === undefined) {
        active -= 1;
        return;
      }
      unwatch(next.signal);
      next.resolve(true);
    },
    get waiting() {
      return queue.length;
    },
  };
}
