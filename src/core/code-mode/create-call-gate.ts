/** At most `limit` holders at once; the others wait their turn, first come first served. */
export interface CallGate {
  /** Take a free place now, if there is one: the common case starts its call with no await. */
  tryEnter(): boolean;
  /** Wait for a place: true once one is taken, false when `signal` aborts first (the place is then not taken). */
  enter(signal: AbortSignal): Promise<boolean>;
  /** Give back a place `enter` granted. */
  leave(): void;
}

interface Waiter {
  readonly signal: AbortSignal;
  readonly resolve: (admitted: boolean) => void;
}

/**
 * A counting semaphore for one script's nested calls. The bound holds however
 * many calls the script starts at once: a waiting call holds nothing but its
 * place in the queue, and the calls of a script that stopped (their signal
 * aborted) leave the queue without ever running. One abort listener per
 * signal, not per waiter: a script may queue hundreds of calls on one signal.
 */
export function createCallGate(limit: number): CallGate {
  let active = 0;
  const waiting: Waiter[] = [];
  const watched = new Set<AbortSignal>();
  const drop = (signal: AbortSignal): void => {
    for (let index = waiting.length - 1; index >= 0; index -= 1) {
      const waiter = waiting[index] as Waiter;
      if (waiter.signal !== signal) continue;
      waiting.splice(index, 1);
      waiter.resolve(false);
    }
  };
  const tryEnter = (): boolean => {
    if (active >= limit) return false;
    active += 1;
    return true;
  };
  return {
    tryEnter,
    enter(signal) {
      if (signal.aborted) return Promise.resolve(false);
      if (tryEnter()) return Promise.resolve(true);
      if (!watched.has(signal)) {
        watched.add(signal);
        signal.addEventListener('abort', () => drop(signal), { once: true });
      }
      return new Promise<boolean>((resolve) => waiting.push({ signal, resolve }));
    },
    leave() {
      const next = waiting.shift();
      // The place passes straight to the next waiter: `active` stays as it is.
      if (next === undefined) active -= 1;
      else next.resolve(true);
    },
  };
}
