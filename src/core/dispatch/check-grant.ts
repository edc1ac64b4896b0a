import { ToolPolicyError } from '../errors/tool-errors.js';
import type { ResolvedDispatchState } from './dispatch-state.js';

/**
 * Stage 3: the name must be in `context.grantedTools`. Absent grants mean
 * nothing is granted: holding a definition is not authorisation to run it.
 * A grant names a tool (`read_file`) or one version of it (`read_file@1.0.0`).
 * Only an Array or a Set grants; any other value (a string from an env var or
 * a YAML scalar, an object) grants nothing, so a substring never matches.
 */
export function checkGrant(state: ResolvedDispatchState): ToolPolicyError | undefined {
  const tool = state.tool;
  if (isGranted(state.context.grantedTools, tool.name, tool.key)) return undefined;
  return new ToolPolicyError(tool.key, 'not_granted');
}

function isGranted(granted: unknown, name: string, key: string): boolean {
  if (granted instanceof Set) return granted.has(name) || granted.has(key);
  if (Array.isArray(granted)) return Array.prototype.includes.call(granted, name) || Array.prototype.includes.call(granted, key);
  return false;
}
