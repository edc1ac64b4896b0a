import { createCallGate, type CallGate } from './create-call-gate.js';

/**
 * The places of a registry (`limits.maxConcurrentCalls`), and each MCP
 * server's share of them: half the places, and at least one. A call to an
 * upstream holds its place until the server answers, and a server may never
 * answer, or keep each call alive with progress; without a share its calls
 * alone would take every place, and every other tool, of every client,
 * would wait behind them. The calls of every server together take at most
 * all the places but one: two servers that hang took half each, every place.
 * A server's calls wait for a place in its share first, then among the
 * servers' places, then among all (always in that order, so no two wait on
 * each other).
 */
export interface CallPlaces {
  /** Take a place now if one is free (in the server's share too): the common case starts with no await. */
  tryTake(server: string | undefined): boolean;
  /** Wait for a place: true once taken, false when `signal` aborts first (nothing is then held). */
  take(server: string | undefined, signal: AbortSignal | undefined): Promise<boolean>;
  /** Give back a place `tryTake` or `take` gave, with the same server. */
  give(server: string | undefined): void;
  /** Calls waiting their turn, in every line. */
  readonly waiting: number;
}

/** One server's share, while any of its calls holds a place in it or waits for one. */
interface Share {
  readonly gate: CallGate;
  users: number;
}

export function createCallPlaces(limit: number): CallPlaces {
  const all = createCallGate(limit);
  const shareLimit = Math.max(1, Math.floor(limit / 2));
  // What the servers' calls hold together: one place stays for the calls to no server (there is none left over from one).
  const servers = createCallGate(Math.max(1, limit - 1));
  // A model names any server it likes (`mcp_call`): a share is kept only while it is used, so the names it tried leave nothing behind.
  const shares = new Map<string, Share>();
  const join = (server: string): Share => {
    let share = shares.get(server);
    if (share === undefined) {
      share = { gate: createCallGate(shareLimit), users: 0 };
      shares.set(server, share);
    }
    share.users += 1;
    return share;
  };
  const quit = (server: string, share: Share): void => {
    share.users -= 1;
    if (share.users === 0) shares.delete(server);
  };
  // The lines a server's call passes, in this order: its share, the servers' places, all the places.
  const linesOf = (share: Share): readonly CallGate[] => [share.gate, servers, all];
  const leave = (lines: readonly CallGate[], server: string, share: Share): void => {
    for (const line of lines) line.leave();
    quit(server, share);
  };
  return {
    tryTake(server) {
      if (server === undefined) return all.tryEnter();
      const share = join(server);
      const lines = linesOf(share);
      const full = lines.findIndex((line) => !line.tryEnter());
      if (full === -1) return true;
      leave(lines.slice(0, full), server, share);
      return false;
    },
    async take(server, signal) {
      if (server === undefined) return all.tryEnter() || all.enter(signal);
      const share = join(server);
      const lines = linesOf(share);
      for (const [index, line] of lines.entries()) {
        // Taken with no await where free: the call is in the next line before anything else runs, and counts as waiting there.
        if (line.tryEnter() || (await line.enter(signal))) continue;
        leave(lines.slice(0, index), server, share);
        return false;
      }
      return true;
    },
    give(server) {
      if (server === undefined) return all.leave();
      const share = shares.get(server);
      if (share === undefined) return all.leave();
      leave(linesOf(share), server, share);
    },
    get waiting() {
      let waiting = all.waiting + servers.waiting;
      for (const share of shares.values()) waiting += share.gate.waiting;
      return waiting;
    },
  };
}
