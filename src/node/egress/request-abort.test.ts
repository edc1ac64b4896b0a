import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { RequestAbort } from './request-abort.js';

describe('RequestAbort', () => {
  it('relays the caller abort with its reason, once', () => {
    const caller = new AbortController();
    const abort = new RequestAbort(caller.signal, 60_000);
    let fired = 0;
    abort.on('abort', () => (fired += 1));
    caller.abort(new Error('stop'));
    caller.abort(new Error('again'));
    expect(abort.aborted).toBe(true);
    expect((abort.reason as Error).message).toBe('stop');
    expect(abort.timedOut).toBe(false);
    expect(fired).toBe(1);
    abort.dispose();
  });

  it('is aborted at once when the caller already was', () => {
    const caller = new AbortController();
    caller.abort('early');
    const abort = new RequestAbort(caller.signal, 60_000);
    expect(abort.aborted).toBe(true);
    expect(abort.reason).toBe('early');
    abort.dispose();
  });

  it('marks its own deadline as a timeout', async () => {
    const abort = new RequestAbort(undefined, 5);
    await new Promise((resolve) => abort.once('abort', resolve));
    expect(abort.timedOut).toBe(true);
    expect((abort.reason as DOMException).name).toBe('TimeoutError');
  });

  it('leaves nothing behind on dispose: no listener on the caller signal, no deadline', async () => {
    const caller = new AbortController();
    const abort = new RequestAbort(caller.signal, 5);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    abort.dispose();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(abort.aborted).toBe(false);
  });
});
