export interface RefreshSchedulerOptions<TServer> {
  /** Which queue a server's refreshes join. */
  readonly keyOf: (server: TServer) => string;
  readonly relist: (server: TServer) => Promise<void>;
  /** A refresh that failed, reported once, whoever awaited it. */
  readonly onFailure: (server: TServer, error: unknown) => void;
}

/**
 * Refreshes of one server run one at a time, and at most one waits behind
 * the running one. A notification that arrives meanwhile joins the waiting
 * refresh, which lists after it anyway: a burst of `list_changed` from a
 * hostile upstream costs two listings, not one per notification.
 */
export function createRefreshScheduler<TServer>(options: RefreshSchedulerOptions<TServer>): (server: TServer) => Promise<void> {
  const queues = new Map<string, { last: Promise<void>; waiting: Promise<void> | undefined }>();
  return (server) => {
    const key = options.keyOf(server);
    const queue = queues.get(key) ?? { last: Promise.resolve(), waiting: undefined };
    queues.set(key, queue);
    if (queue.waiting !== undefined) return queue.waiting;
    const next = queue.last.then(() => {
      queue.waiting = undefined;
      return options.relist(server);
    });
    queue.waiting = next;
    queue.last = next.catch((error: unknown) => {
      options.onFailure(server, error);
    });
    return next;
  };
}
