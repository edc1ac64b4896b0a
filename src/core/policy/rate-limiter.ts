import { ConfigurationError } from '../errors/tool-errors.js';

/** A token bucket: `capacity` tokens, refilled at `refillPerSecond`. */
export interface RateLimit {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

export interface RateLimits {
  /** Per tool name; `*` applies to every tool without its own entry. */
  readonly perTool?: Readonly<Record<string, RateLimit>>;
  /** Per agent; `*` applies to every agent (and to calls without one). */
  readonly perAgent?: Readonly<Record<string, RateLimit>>;
}

export type RateCheck = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number; readonly scope: 'tool' | 'agent' };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets per tool and per agent. A call takes one token from each
 * bucket that applies, and only when all have one (a refused call costs
 * nothing). Time is `Date.now()`: decisions stay synchronous.
 */
export function createRateLimiter(limits: RateLimits | undefined, now: () => number = Date.now): (tool: string, agent: string | undefined) => RateCheck {
  const buckets = new Map<string, Bucket>();
  const perTool = limits?.perTool ?? {};
  const perAgent = limits?.perAgent ?? {};
  for (const [field, table] of [['perTool', perTool], ['perAgent', perAgent]] as const) {
    for (const limit of Object.values(table)) {
      if (!(Number.isFinite(limit.capacity) && limit.capacity >= 1 && Number.isFinite(limit.refillPerSecond) && limit.refillPerSecond >= 0)) {
        throw new ConfigurationError(`rateLimits.${field}`, 'needs capacity ≥ 1 and a finite refillPerSecond ≥ 0');
      }
    }
  }
  const pick = (table: Readonly<Record<string, RateLimit>>, key: string): RateLimit | undefined =>
    Object.hasOwn(table, key) ? table[key] : Object.hasOwn(table, '*') ? table['*'] : undefined;
  return (tool, agent) => {
    const applicable: [string, RateLimit, 'tool' | 'agent'][] = [];
    const toolLimit = pick(perTool, tool);
    if (toolLimit !== undefined) applicable.push([`tool\0${tool}`, toolLimit, 'tool']);
    const agentKey = agent ?? '';
    const agentLimit = pick(perAgent, agentKey);
    if (agentLimit !== undefined) applicable.push([`agent\0${agentKey}`, agentLimit, 'agent']);
    if (applicable.length === 0) return { ok: true };
    const at = now();
    const filled = applicable.map(([key, limit, scope]) => {
      const bucket = buckets.get(key) ?? { tokens: limit.capacity, updatedAt: at };
      bucket.tokens = Math.min(limit.capacity, bucket.tokens + (Math.max(0, at - bucket.updatedAt) / 1000) * limit.refillPerSecond);
      bucket.updatedAt = Math.max(bucket.updatedAt, at);
      buckets.set(key, bucket);
      return { bucket, limit, scope };
    });
    const empty = filled.find(({ bucket }) => bucket.tokens < 1);
    if (empty !== undefined) {
      const missing = 1 - empty.bucket.tokens;
      const retryAfterMs = empty.limit.refillPerSecond > 0 ? Math.ceil((missing / empty.limit.refillPerSecond) * 1000) : Number.MAX_SAFE_INTEGER;
      return { ok: false, retryAfterMs, scope: empty.scope };
    }
    for (const { bucket } of filled) bucket.tokens -= 1;
    return { ok: true };
  };
}
