import { describe, expect, test } from 'vitest';
import { ConfigurationError } from '../errors/tool-errors.js';
import { createRateLimiter } from './rate-limiter.js';

describe('token buckets', () => {
  test('per tool: capacity, refusal with retry-after, refill', () => {
    let now = 1_000;
    const take = createRateLimiter({ perTool: { fetch: { capacity: 2, refillPerSecond: 1 } } }, () => now);
    expect(take('fetch', undefined)).toEqual({ ok: true });
    expect(take('fetch', undefined)).toEqual({ ok: true });
    expect(take('fetch', undefined)).toEqual({ ok: false, retryAfterMs: 1000, scope: 'tool' });
    now += 500;
    expect(take('fetch', undefined)).toEqual({ ok: false, retryAfterMs: 500, scope: 'tool' });
    now += 500;
    expect(take('fetch', undefined)).toEqual({ ok: true });
    expect(take('other', undefined)).toEqual({ ok: true });
  });

  test('per agent with a * default; a refused call costs no token from the other bucket', () => {
    let now = 0;
    const take = createRateLimiter({ perTool: { '*': { capacity: 10, refillPerSecond: 0 } }, perAgent: { '*': { capacity: 1, refillPerSecond: 1 }, bulk: { capacity: 3, refillPerSecond: 1 } } }, () => now);
    expect(take('a', 'alice').ok).toBe(true);
    expect(take('a', 'alice')).toMatchObject({ ok: false, scope: 'agent' });
    for (let index = 0; index < 3; index += 1) expect(take('a', 'bulk').ok).toBe(true);
    expect(take('a', 'bulk').ok).toBe(false);
    // Tool bucket: 10 − 4 successful calls.
    now += 60_000;
    for (let index = 0; index < 6; index += 1) expect(take('a', `agent${index}`).ok).toBe(true);
    expect(take('a', 'fresh')).toMatchObject({ ok: false, scope: 'tool' });
  });

  test('time going backwards never adds tokens', () => {
    let now = 10_000;
    const take = createRateLimiter({ perTool: { t: { capacity: 1, refillPerSecond: 1 } } }, () => now);
    expect(take('t', undefined).ok).toBe(true);
    now -= 5_000;
    expect(take('t', undefined).ok).toBe(false);
  });

  test.each([{ capacity: 0, refillPerSecond: 1 }, { capacity: 1, refillPerSecond: -1 }, { capacity: Number.NaN, refillPerSecond: 1 }])('refuses %j', (limit) => {
    expect(() => createRateLimiter({ perAgent: { a: limit } })).toThrow(ConfigurationError);
  });
});
