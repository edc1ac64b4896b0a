import type { JsonSchema } from './tool-types.js';

// Schemas are bounded at definition time (check-schema-size); this only caps the walk itself.
const MAX_NODES = 10_000;

/**
 * Every property name a JSON Schema declares, at any depth. They are the
 * schema's own words, so an error may name them (`tasks.0.title`), while a
 * key the caller invented (a record's key) stays withheld.
 */
export function declaredPropertyNames(schema: JsonSchema | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  const pending: unknown[] = [schema];
  let visited = 0;
  while (pending.length > 0 && visited < MAX_NODES) {
    const node = pending.pop();
    visited += 1;
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      pending.push(...(node as unknown[]));
      continue;
    }
    for (const [keyword, value] of Object.entries(node as Record<string, unknown>)) {
      // Data, not schema: their keys are values the author wrote, not fields.
      if (keyword === 'const' || keyword === 'enum' || keyword === 'default' || keyword === 'examples') continue;
      if (keyword === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const name of Object.keys(value)) names.add(name);
      }
      pending.push(value);
    }
  }
  return names;
}
