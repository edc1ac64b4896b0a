/**
 * The least time between the end of one refresh of a server and the start of
 * the next: a server that says its tools changed again and again is listed
 * at most once a second, however small its listing.
 */
export const MIN_REFRESH_GAP_MS = 1_000;

/**
 * After a refresh that took T, the next one of that server waits this many
 * times T: its refreshes then take at most a fifth of the gateway's time
 * (T out of T + 4T), the rest left to the other servers and the built-in
 * tools, whatever the server sends. T is wall time, the upstream's answer included:
 * a refresh's own CPU time cannot be told apart from the gateway's other work,
 * and wall time is never less.
 */
export const REFRESH_GAP_FACTOR = 4;

export interface RefreshSchedulerOptions<TServer> {
  /** Which queue a server's refreshes join. */
  readonly keyOf: (server: TServer) => string;
  readonly relist: (server: TServer) => Promise<void>;
  /** A refresh that failed, reported once, whoever awaited it. */
  readonly onFailure: (server: TServer, error: unknown) => void;
}

export interface RefreshRequest {
  /**
   * Asked for by a person (a pin approved, a refresh called), not announced
   * by the server: start without waiting out the gap its last refresh left.
   */
  readonly promptly?: boolean;
}

export type RefreshScheduler<TServer> = (server: TServer, request?: RefreshRequest) => Promise<void>;

interface ServerQueue<TServer> {
  last: Promise<void>;
  waiting: Promise<void> | undefined;
  /** The newest server given for the key: the one the waiting refresh lists (a restarted server replaces the one that asked). */
  server: TServer;
  /** Whether a person asked for the waiting refresh: it skips the gap. */
  promptly: boolean;
  /** When, on `performance.now()`'s clock, the next refresh may start. */
  startAt: number;
  /** Ends the waiting refresh's gap early. */
  startNow: (() => void) | undefined;
}

/**
 * Refreshes of one server run one at a time, and at most one waits behind
 * the running one. A notification that arrives meanwhile joins the waiting
 * refresh, which lists after it anyway: a burst of `list_changed` from a
 * hostile upstream costs two listings, not one per notification. A refresh
 * starts no sooner than the gap its server's last one left
 * (`MIN_REFRESH_GAP_MS`, `REFRESH_GAP_FACTOR`), so a server that announces a
 * change after every listing is listed within that budget; the first refresh
 * after a quiet spell starts at once. Servers' gaps are their own.
 */
export function createRefreshScheduler<TServer>(options: RefreshSchedulerOptions<TServer>): RefreshScheduler<TServer> {
  const queues = new Map<string, ServerQueue<TServer>>();
  return (server, request = {}) => {
    const key = options.keyOf(server);
    const queue = queues.get(key) ?? { last: Promise.resolve(), waiting: undefined, server, promptly: false, startAt: 0, startNow: undefined };
    queues.set(key, queue);
    queue.server = server;
    if (request.promptly === true) {
      queue.promptly = true;
      queue.startNow?.();
    }
    if (queue.waiting !== undefined) return queue.waiting;
    let listed = server;
    const next = queue.last.then(async () => {
      if (!queue.promptly) await gapBefore(queue);
      queue.waiting = undefined;
      queue.promptly = false;
      listed = queue.server;
      const started = performance.now();
      try {
        await options.relist(listed);
      } finally {
        const ended = performance.now();
        queue.startAt = ended + Math.max(MIN_REFRESH_GAP_MS, REFRESH_GAP_FACTOR * (ended - started));
      }
    });
    queue.waiting = next;
    queue.last = next.catch((error: unknown) => {
      options.onFailure(listed, error);
    });
    return next;
  };
}

/** Until the queue's next refresh may start, or its `startNow`. */
function gapBefore(queue: ServerQueue<unknown>): Promise<void> {
  const wait = queue.startAt - performance.now();
  if (wait <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    // Unreferenced: a refresh due later keeps no process alive (an open server connection does, while it matters).
    const timer = setTimeout(start, wait);
    timer.unref();
    function start(): void {
      clearTimeout(timer);
      queue.startNow = undefined;
      resolve();
    }
    queue.startNow = start;
  });
}
