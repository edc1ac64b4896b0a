import { UnknownToolError } from '../errors/tool-errors.js';
import { CODE_MODE_TOOL_NAME } from '../registry/registry-state.js';
import { resolveToolName, visibleTools } from '../registry/resolve-tool-name.js';
import { resolveDispatchState, type DispatchState, type ResolvedDispatchState } from './dispatch-state.js';

/**
 * Stage 2: exact resolution in the caller's scope view. In `code`
 * presentation only `run_code` may be called directly: any other name is
 * unknown to a model, before any policy runs. `run_code` itself resolves
 * only for a model in `code` or `both`, past every mask and shadow.
 */
export function resolveTool(state: DispatchState): UnknownToolError | ResolvedDispatchState {
  const { snapshot, scope, call } = state;
  const presentAs = scope?.presentAs ?? snapshot.presentAs;
  if (presentAs === 'code' && state.origin === 'model' && call.name !== CODE_MODE_TOOL_NAME) {
    return new UnknownToolError(call.name, [CODE_MODE_TOOL_NAME]);
  }
  if (call.name === CODE_MODE_TOOL_NAME) {
    // The transport: offered to the model only in code and both; never to a script (no recursion).
    if (presentAs !== 'native' && state.origin === 'model' && snapshot.codeTool !== undefined) return resolveDispatchState(state, snapshot.codeTool);
    return new UnknownToolError(call.name, availableNames(state));
  }
  const resolution = resolveToolName(snapshot, scope, call.name);
  if (resolution.found) return resolveDispatchState(state, resolution.tool);
  return new UnknownToolError(call.name, availableNames(state));
}

function availableNames(state: DispatchState): string[] {
  const visible = visibleTools(state.snapshot, state.scope);
  const granted = state.context.grantedTools;
  // As the grant check reads grants: only an Array or a Set grants anything.
  if (!(granted instanceof Set) && !Array.isArray(granted)) return [];
  const allowed: ReadonlySet<string> = granted instanceof Set ? granted : new Set(granted as readonly string[]);
  // List only what this caller could actually call: visible and granted.
  return visible.filter((tool) => allowed.has(tool.name) || allowed.has(tool.key)).map((tool) => tool.key);
}
