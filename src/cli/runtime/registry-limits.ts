import type { RegistryLimits } from '../../core/internal.js';
import type { ResolvedConfig } from '../config/config-types.js';

/** The registry's input, output and content ceilings, and its calls at once, a configuration sets; an unset one keeps the registry's default. */
export function registryLimits(config: ResolvedConfig): RegistryLimits {
  return {
    ...(config.limits.maxConcurrentCalls === undefined ? {} : { maxConcurrentCalls: config.limits.maxConcurrentCalls }),
    ...(config.limits.maxQueuedCalls === undefined ? {} : { maxQueuedCalls: config.limits.maxQueuedCalls }),
    ...(config.limits.maxInputBytes === undefined ? {} : { maxInputBytes: config.limits.maxInputBytes }),
    ...(config.limits.maxOutputBytes === undefined ? {} : { maxOutputBytes: config.limits.maxOutputBytes }),
    content: { ...(config.limits.maxBytes === undefined ? {} : { maxBytes: config.limits.maxBytes }), ...(config.limits.maxLines === undefined ? {} : { maxLines: config.limits.maxLines }) },
  };
}
