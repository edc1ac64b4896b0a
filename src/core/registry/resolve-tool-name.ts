import { wireToolName } from '../names/wire-tool-name.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import type { FoundResolution, RegistrySnapshot, ScopeState } from './registry-state.js';

export type NameResolution = FoundResolution | { readonly found: false; readonly why: 'unknown' | 'needs-version' | 'not-admitted' };

const NOT_ADMITTED: NameResolution = Object.freeze({ found: false, why: 'not-admitted' });

/** Whether a global name passes every mask of the scope. Masks intersect. */
export function isAdmittedBy(scope: ScopeState | undefined, name: string): boolean {
  if (scope === undefined) return true;
  for (const mask of scope.masks) {
    if (mask.names.has(name) !== (mask.kind === 'allow')) return false;
  }
  return true;
}

function pickVersion(versions: readonly CompiledTool[], version: string | undefined): CompiledTool | 'needs-version' | undefined {
  if (version === undefined) return versions.length === 1 ? versions[0] : 'needs-version';
  return versions.find((tool) => tool.version === version);
}

/**
 * Exact resolution in a scope: agent-local tools shadow globals; globals must
 * pass the scope's masks. `name@1.2.0` pins a version; a bare name resolves
 * only when exactly one version exists. Never fuzzy, never "latest".
 */
export function resolveToolName(snapshot: RegistrySnapshot, scope: ScopeState | undefined, requested: string): NameResolution {
  // Fast path: a global name that finds a tool, seen from a scope with no local tools.
  const hit = snapshot.resolutions.get(requested);
  if (hit !== undefined) {
    if (scope === undefined) return hit;
    if (scope.local.size === 0) return isAdmittedBy(scope, hit.name) ? hit : NOT_ADMITTED;
  }
  const at = requested.indexOf('@');
  const name = at === -1 ? requested : requested.slice(0, at);
  const version = at === -1 ? undefined : requested.slice(at + 1);
  const local = scope?.local.get(name);
  const versions = local ?? snapshot.byName.get(name);
  if (versions === undefined) return at === -1 ? resolveWireName(snapshot, scope, requested) : { found: false, why: 'unknown' };
  if (local === undefined && !isAdmittedBy(scope, name)) return { found: false, why: 'not-admitted' };
  const picked = pickVersion(versions, version);
  if (picked === undefined) return { found: false, why: 'unknown' };
  if (picked === 'needs-version') return { found: false, why: 'needs-version' };
  return { found: true, name: picked.name, tool: picked, definition: picked.definition };
}

const WIRE_VERSION = '__v';

/** The versioned tool a wire name (`name__v1_2_0`) stands for, among these layers. */
function splitWireName(requested: string): { readonly name: string; readonly suffix: string } | undefined {
  const at = requested.lastIndexOf(WIRE_VERSION);
  if (at <= 0) return undefined;
  return { name: requested.slice(0, at), suffix: requested.slice(at) };
}

function resolveWireName(snapshot: RegistrySnapshot, scope: ScopeState | undefined, requested: string): NameResolution {
  const parts = splitWireName(requested);
  if (parts === undefined) return { found: false, why: 'unknown' };
  const local = scope?.local.get(parts.name);
  const versions = local ?? snapshot.byName.get(parts.name);
  const tool = versions?.find((entry) => entry.version !== undefined && wireToolName(entry.name, entry.version) === requested);
  if (tool === undefined) return { found: false, why: 'unknown' };
  if (local === undefined && !isAdmittedBy(scope, parts.name)) return { found: false, why: 'not-admitted' };
  return { found: true, name: tool.name, tool, definition: tool.definition };
}

/** The key of a registered version whose wire name is `wire`, if any (for collision checks). */
export function findWireName(byName: ReadonlyMap<string, readonly CompiledTool[]>, wire: string): string | undefined {
  const parts = splitWireName(wire);
  if (parts === undefined) return undefined;
  return byName.get(parts.name)?.find((entry) => entry.version !== undefined && wireToolName(entry.name, entry.version) === wire)?.key;
}

/** Every tool the scope can see: locals, then admitted globals not shadowed, sorted by key. */
export function visibleTools(snapshot: RegistrySnapshot, scope: ScopeState | undefined): readonly CompiledTool[] {
  const tools: CompiledTool[] = [];
  for (const [name, versions] of snapshot.byName) {
    if (scope?.local.has(name) === true || !isAdmittedBy(scope, name)) continue;
    tools.push(...versions);
  }
  if (scope !== undefined) for (const versions of scope.local.values()) tools.push(...versions);
  return tools.sort((left, right) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0));
}
