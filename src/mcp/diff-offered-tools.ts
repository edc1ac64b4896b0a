import type { AnyToolDefinition } from '../core/internal.js';

export type OfferedToolsDiff =
  | { readonly type: 'unchanged' }
  /** `added` holds the names that are new or now name another definition. */
  | { readonly type: 'changed'; readonly added: readonly string[]; readonly removed: readonly string[] };

/** What changed between two offered sets: a name counts as added when its definition is not the very same object as before. */
export function diffOfferedTools(previous: readonly AnyToolDefinition[], next: readonly AnyToolDefinition[]): OfferedToolsDiff {
  const before = new Map(previous.map((tool) => [tool.name, tool]));
  const after = new Map(next.map((tool) => [tool.name, tool]));
  const added = [...after.keys()].filter((name) => before.get(name) !== after.get(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  return added.length === 0 && removed.length === 0 ? { type: 'unchanged' } : { type: 'changed', added, removed };
}
