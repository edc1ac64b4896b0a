import { describe, expect, it } from 'vitest';
import { createServedCalls } from './served-calls.js';

describe('createServedCalls', () => {
  it('settles once every tracked call has ended, answered or failed', async () => {
    const calls = createServedCalls();
    let finish: (value: string) => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    const answered = calls.track(new Promise<string>((resolve) => (finish = resolve)));
    const failed = calls.track(new Promise<string>((_resolve, reject) => (fail = reject)));
    failed.catch(() => undefined);
    let settled = false;
    const waiting = calls.settled(10_000).then(() => (settled = true));
    finish('done');
    await answered;
    await Promise.resolve();
    expect(settled).toBe(false);
    fail(new Error('aborted'));
    await waiting;
    expect(settled).toBe(true);
  });

  it('gives up on a call that never ends after the time it is given', async () => {
    const calls = createServedCalls();
    void calls.track(new Promise<never>(() => undefined));
    const started = Date.now();
    await calls.settled(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('hands back the call it tracks, and settles at once with none running', async () => {
    const calls = createServedCalls();
    await expect(calls.track(Promise.resolve(7))).resolves.toBe(7);
    await calls.settled(60_000);
  });
});
