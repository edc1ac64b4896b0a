import { describe, expect, it } from 'vitest';
import { createRefreshScheduler } from './create-refresh-scheduler.js';

describe('createRefreshScheduler', () => {
  it('runs one refresh at a time and folds a burst into one waiting refresh', async () => {
    const started: string[] = [];
    let release: () => void = () => undefined;
    const refresh = createRefreshScheduler<string>({
      keyOf: (server) => server,
      relist: (server) => {
        started.push(server);
        return started.length === 1 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
      onFailure: () => undefined,
    });
    const first = refresh('a');
    await Promise.resolve();
    const burst = [refresh('a'), refresh('a'), refresh('a')];
    expect(burst[1]).toBe(burst[0]);
    expect(burst[2]).toBe(burst[0]);
    release();
    await Promise.all([first, ...burst]);
    expect(started).toEqual(['a', 'a']);
  });

  it('reports a failed refresh once and keeps the queue going', async () => {
    const failures: unknown[] = [];
    let calls = 0;
    const refresh = createRefreshScheduler<string>({
      keyOf: (server) => server,
      relist: () => ((calls += 1) === 1 ? Promise.reject(new Error('listing failed')) : Promise.resolve()),
      onFailure: (_server, error) => failures.push(error),
    });
    await expect(refresh('a')).rejects.toThrow('listing failed');
    await refresh('a');
    expect(calls).toBe(2);
    expect(failures).toHaveLength(1);
  });
});
