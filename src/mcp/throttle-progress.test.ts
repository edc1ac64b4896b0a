import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttleProgress } from './throttle-progress.js';

describe('throttleProgress', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the first update at once, then the latest of each interval at its end', () => {
    const sent: number[] = [];
    const throttle = throttleProgress((update) => sent.push(update.progress), 50);
    for (let step = 1; step <= 1000; step += 1) throttle.report({ progress: step });
    expect(sent).toEqual([1]);
    vi.advanceTimersByTime(50);
    expect(sent).toEqual([1, 1000]);
    vi.advanceTimersByTime(500);
    expect(sent).toEqual([1, 1000]);
  });

  it('sends an update at once when the interval since the last one has passed', () => {
    const sent: number[] = [];
    const throttle = throttleProgress((update) => sent.push(update.progress), 50);
    throttle.report({ progress: 1 });
    vi.advanceTimersByTime(60);
    throttle.report({ progress: 2 });
    expect(sent).toEqual([1, 2]);
    throttle.report({ progress: 3, total: 10, message: 'almost' });
    vi.advanceTimersByTime(49);
    expect(sent).toEqual([1, 2]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([1, 2, 3]);
  });

  it('sends what it holds when the call is over, and nothing after', () => {
    const sent: number[] = [];
    const throttle = throttleProgress((update) => sent.push(update.progress), 50);
    throttle.report({ progress: 1 });
    throttle.report({ progress: 2 });
    throttle.stop();
    expect(sent).toEqual([1, 2]);
    vi.advanceTimersByTime(100);
    throttle.report({ progress: 3 });
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([1, 2]);
  });
});
