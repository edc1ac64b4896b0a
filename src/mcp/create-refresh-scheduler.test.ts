import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRefreshScheduler, MIN_REFRESH_GAP_MS, REFRESH_GAP_FACTOR } from './create-refresh-scheduler.js';

interface Server {
  readonly name: string;
  readonly generation?: number;
}

/** A scheduler whose listings each take `listingMs` of (fake) time, recording when each started and which server it listed. */
function scheduler(listingMs: (count: number) => number = () => 10, fail: (count: number) => boolean = () => false) {
  const started: { at: number; server: Server }[] = [];
  const failures: unknown[] = [];
  const refresh = createRefreshScheduler<Server>({
    keyOf: (server) => server.name,
    relist: async (server) => {
      started.push({ at: performance.now(), server });
      const count = started.length;
      await new Promise((resolve) => setTimeout(resolve, listingMs(count)));
      if (fail(count)) throw new Error('listing failed');
    },
    onFailure: (_server, error) => failures.push(error),
  });
  return { refresh, started, failures };
}

const a: Server = { name: 'a' };
const b: Server = { name: 'b' };

describe('createRefreshScheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs one refresh at a time and folds a burst into one waiting refresh', async () => {
    const { refresh, started } = scheduler(() => 100);
    const first = refresh(a);
    await vi.advanceTimersByTimeAsync(10);
    const burst = [refresh(a), refresh(a), refresh(a)];
    expect(burst[1]).toBe(burst[0]);
    expect(burst[2]).toBe(burst[0]);
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all([first, ...burst]);
    expect(started).toHaveLength(2);
  });

  it('starts the next refresh of a server the floor, or four times its last listing, after that listing ended', async () => {
    const origin = performance.now();
    const { refresh, started } = scheduler((count) => (count === 1 ? 10 : 500));
    void refresh(a);
    await vi.advanceTimersByTimeAsync(1);
    // A change announced during the listing waits for it, then for the gap it leaves.
    void refresh(a);
    await vi.advanceTimersByTimeAsync(10 + MIN_REFRESH_GAP_MS - 2);
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(started.map((entry) => entry.at - origin)).toEqual([0, 10 + MIN_REFRESH_GAP_MS]);
    // This listing takes 500 ms: the next waits 2 s after it, not the floor.
    void refresh(a);
    const ended = started[1]!.at + 500;
    await vi.advanceTimersByTimeAsync(ended + REFRESH_GAP_FACTOR * 500 - 1 - performance.now());
    expect(started).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(started[2]!.at).toBe(ended + REFRESH_GAP_FACTOR * 500);
    expect(REFRESH_GAP_FACTOR * 500).toBeGreaterThan(MIN_REFRESH_GAP_MS);
  });

  it('folds every change announced during the gap into the one delayed refresh', async () => {
    const { refresh, started } = scheduler();
    await Promise.all([refresh(a), vi.advanceTimersByTimeAsync(10)]);
    const delayed = refresh(a);
    for (let step = 0; step < 50; step += 1) {
      expect(refresh(a)).toBe(delayed);
      await vi.advanceTimersByTimeAsync(15);
    }
    await vi.advanceTimersByTimeAsync(MIN_REFRESH_GAP_MS);
    await delayed;
    expect(started).toHaveLength(2);
  });

  it('starts the first refresh after a quiet spell at once', async () => {
    const { refresh, started } = scheduler();
    await Promise.all([refresh(a), vi.advanceTimersByTimeAsync(10)]);
    await vi.advanceTimersByTimeAsync(MIN_REFRESH_GAP_MS);
    const quiet = performance.now();
    void refresh(a);
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((entry) => entry.at)).toContain(quiet);
  });

  it('keeps each server’s gap its own', async () => {
    const { refresh, started } = scheduler(() => 1_000);
    void refresh(a);
    await vi.advanceTimersByTimeAsync(1_000);
    void refresh(a);
    const now = performance.now();
    void refresh(b);
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((entry) => [entry.server.name, entry.at])).toEqual([
      ['a', now - 1_000],
      ['b', now],
    ]);
  });

  it('reports a failed refresh once, keeps the queue going, and counts its time like any other', async () => {
    const { refresh, started, failures } = scheduler(() => 400, (count) => count === 1);
    const failed = refresh(a);
    const rejection = expect(failed).rejects.toThrow('listing failed');
    await vi.advanceTimersByTimeAsync(400);
    await rejection;
    const next = refresh(a);
    await vi.advanceTimersByTimeAsync(REFRESH_GAP_FACTOR * 400 - 1);
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1 + 400);
    await next;
    expect(started).toHaveLength(2);
    expect(failures).toHaveLength(1);
  });

  it('starts a refresh a person asks for without the gap, taking along the one that waits in it', async () => {
    const { refresh, started } = scheduler(() => 100);
    void refresh(a);
    await vi.advanceTimersByTimeAsync(10);
    // Asked for while one runs: starts as soon as it ends.
    const asked = refresh(a, { promptly: true });
    await vi.advanceTimersByTimeAsync(90);
    expect(started).toHaveLength(2);
    await Promise.all([asked, vi.advanceTimersByTimeAsync(100)]);
    const announced = refresh(a);
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toHaveLength(2);
    expect(refresh(a, { promptly: true })).toBe(announced);
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toHaveLength(3);
  });

  it('lists the newest server given for a name: one restarted while its refresh waits is the one listed', async () => {
    const { refresh, started } = scheduler();
    await Promise.all([refresh(a), vi.advanceTimersByTimeAsync(10)]);
    void refresh(a);
    const restarted = { name: 'a', generation: 2 };
    void refresh(restarted);
    await vi.advanceTimersByTimeAsync(MIN_REFRESH_GAP_MS);
    expect(started.map((entry) => entry.server)).toEqual([a, restarted]);
  });
});

describe('createRefreshScheduler on the real clock', () => {
  const refTimers = (): number => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

  it('holds no process open while a refresh waits out its gap', async () => {
    const { refresh, started } = scheduler(() => 0);
    await refresh(a);
    const before = refTimers();
    const delayed = refresh(a);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toHaveLength(1);
    expect(refTimers()).toBe(before);
    // Started now, so that nothing of this test is left to run later.
    await refresh(a, { promptly: true });
    await delayed;
    expect(started).toHaveLength(2);
  });
});
