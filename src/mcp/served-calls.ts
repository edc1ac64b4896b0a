/** How long closing a gateway waits for the calls it aborted to end, so that a body that ignores its signal cannot hold the stop. */
export const SETTLE_ON_CLOSE_MS = 5_000;

/** The served calls still running, every session together. */
export interface ServedCalls {
  /** Counts `call` until it ends; returns it. */
  track<T>(call: Promise<T>): Promise<T>;
  /** Resolves once every tracked call has ended, or after `withinMs`, whichever comes first. */
  settled(withinMs: number): Promise<void>;
}

/**
 * Closing a session aborts its calls, but a call ends only once its receipt
 * is written: the journal closes after the gateway, so the gateway waits for
 * them. Closed first, the journal refused those receipts, and each call that
 * was still running left its claim unresolved and its receipt unwritten.
 */
export function createServedCalls(): ServedCalls {
  const running = new Set<Promise<unknown>>();
  return {
    track(call) {
      running.add(call);
      const done = (): void => {
        running.delete(call);
      };
      call.then(done, done);
      return call;
    },
    async settled(withinMs) {
      if (running.size === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, withinMs);
      });
      await Promise.race([Promise.allSettled([...running]), late]);
      clearTimeout(timer);
    },
  };
}
