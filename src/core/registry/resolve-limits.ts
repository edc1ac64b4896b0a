import { DEFAULT_TOOL_RESULT_LIMITS } from '../bounding/bound-text.js';
import { ConfigurationError } from '../errors/tool-errors.js';
import type { ResolvedLimits } from './registry-state.js';
import type { RegistryLimits } from './registry-types.js';

/**
 * Calls running at once by default. Each may hold its whole result while it
 * is rendered and bounded (a 10 MB file read holds about 57 MiB then):
 * eight keep a gateway reading such files in parallel under 600 MiB, above
 * the parallel calls an agent step makes.
 */
const DEFAULT_MAX_CONCURRENT_CALLS = 8;
const DEFAULT_MAX_QUEUED_CALLS = 1024;

/** A registry's limits with every default filled in; a limit that is not a positive integer throws `ConfigurationError` naming it. */
export function resolveLimits(limits: RegistryLimits = {}): ResolvedLimits {
  return Object.freeze({
    maxInputBytes: positive(limits.maxInputBytes, 64 * 1024, 'limits.maxInputBytes'),
    maxOutputBytes: positive(limits.maxOutputBytes, 256 * 1024, 'limits.maxOutputBytes'),
    content: Object.freeze({
      maxBytes: positive(limits.content?.maxBytes, DEFAULT_TOOL_RESULT_LIMITS.maxBytes, 'limits.content.maxBytes'),
      maxLines: positive(limits.content?.maxLines, DEFAULT_TOOL_RESULT_LIMITS.maxLines, 'limits.content.maxLines'),
    }),
    maxConcurrentCalls: positive(limits.maxConcurrentCalls, DEFAULT_MAX_CONCURRENT_CALLS, 'limits.maxConcurrentCalls'),
    maxQueuedCalls: positive(limits.maxQueuedCalls, DEFAULT_MAX_QUEUED_CALLS, 'limits.maxQueuedCalls'),
  });
}

function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new ConfigurationError(field, 'must be a positive integer');
  return value;
}
