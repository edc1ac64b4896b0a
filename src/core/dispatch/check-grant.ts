import { ToolPolicyError } from '../errors/tool-errors.js';
import type { DispatchState } from './dispatch-state.js';

/**
 * Stage 3: the name must be in `context.grantedTools`. Absent grants mean
 * nothing is granted: holding a definition is not authorisation to run it.
 * A grant names a tool (`read_file`) or one version of it (`read_file@1.0.0`).
 */
export function checkGrant(state: DispatchState): ToolPolicyError | undefined {
  const tool = state.tool;
  if (tool === undefined) return undefined;
  const granted = state.context.grantedTools;
  if (granted !== undefined) {
    if (granted instanceof Set) {
      if (granted.has(tool.name) || granted.has(tool.key)) return undefined;
    } else if ((granted as readonly string[]).includes(tool.name) || (granted as readonly string[]).includes(tool.key)) {
      return undefined;
    }
  }
  return new ToolPolicyError(tool.key, 'not_granted');
}
