import type { JsonSchema } from '../tools/tool-types.js';
import { defineOwn } from './define-own.js';

export type InlineResult =
  | { readonly ok: true; readonly schema: Record<string, unknown> }
  | { readonly ok: false; readonly reason: string };

export interface InlineOptions {
  /**
   * What a recursive reference becomes. `fail`: the whole schema cannot be
   * inlined. A schema: the recursion is cut there (looser than the original,
   * which the registry's own validator still enforces).
   */
  readonly onRecursion: 'fail' | Readonly<Record<string, unknown>>;
}

// Inlining can multiply a schema (each reference is copied); past this many
// nodes the projection gives up rather than ship a megabyte of tool schema.
const MAX_INLINED_NODES = 10_000;

const DEFINITION_KEYWORDS = ['$defs', 'definitions'] as const;

// Keywords that assert nothing: beside a `$ref` they may be merged over its target.
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$schema', '$defs', 'definitions']);

/**
 * A copy of `schema` with every local `$ref` (`#/$defs/x`, `#/definitions/x`,
 * `#`) replaced by its target and the definition tables removed. Annotations
 * beside a `$ref` (`description`, `title`, …) are merged over the target; any
 * other keyword there (2020-12 allows them: they must hold together with the
 * target) fails, as does a remote or dangling reference.
 */
export function inlineSchemaRefs(schema: JsonSchema, options: InlineOptions): InlineResult {
  const root = schema as Record<string, unknown>;
  let nodes = 0;
  let failure: string | undefined;

  const resolve = (ref: string): Record<string, unknown> | undefined => {
    if (ref === '#') return root;
    for (const table of DEFINITION_KEYWORDS) {
      const prefix = `#/${table}/`;
      if (!ref.startsWith(prefix)) continue;
      const definitions = root[table];
      const key = decodePointerSegment(ref.slice(prefix.length));
      if (typeof definitions !== 'object' || definitions === null || !Object.hasOwn(definitions, key)) return undefined;
      const target = (definitions as Record<string, unknown>)[key];
      return typeof target === 'object' && target !== null && !Array.isArray(target) ? (target as Record<string, unknown>) : undefined;
    }
    return undefined;
  };

  const visit = (node: unknown, stack: readonly string[]): unknown => {
    if (failure !== undefined) return undefined;
    nodes += 1;
    if (nodes > MAX_INLINED_NODES) {
      failure = `inlining references exceeds ${MAX_INLINED_NODES} schema nodes`;
      return undefined;
    }
    if (Array.isArray(node)) return node.map((entry) => visit(entry, stack));
    if (typeof node !== 'object' || node === null) return node;
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === 'string') {
      if (stack.includes(ref)) {
        if (options.onRecursion === 'fail') failure = `the reference "${ref.slice(0, 64)}" is recursive`;
        return options.onRecursion === 'fail' ? undefined : { ...options.onRecursion };
      }
      const target = resolve(ref);
      if (target === undefined) {
        failure = `the reference "${ref.slice(0, 64)}" is not a local definition`;
        return undefined;
      }
      const { $ref: _ref, ...siblings } = record;
      const asserting = Object.keys(siblings).find((key) => !ANNOTATIONS.has(key));
      if (asserting !== undefined) {
        // Beside a `$ref` a keyword applies together with the target (both must hold); merging it
        // over the target would replace the target's `properties`/`required`. Refuse instead.
        failure = `the keyword "${asserting.slice(0, 64)}" beside the reference "${ref.slice(0, 64)}" cannot be inlined`;
        return undefined;
      }
      const expanded = visit(withoutDefinitions(target), [...stack, ref]) as Record<string, unknown>;
      return { ...expanded, ...(visit(siblings, stack) as Record<string, unknown>) };
    }
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      // Literal payloads are data, not schemas: copy them as they are.
      defineOwn(copy, key, key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? value : visit(value, stack));
    }
    return copy;
  };

  const inlined = visit(withoutDefinitions(root), ['#']) as Record<string, unknown>;
  return failure === undefined ? { ok: true, schema: inlined } : { ok: false, reason: failure };
}

function withoutDefinitions(schema: Record<string, unknown>): Record<string, unknown> {
  if (!DEFINITION_KEYWORDS.some((table) => table in schema)) return schema;
  const { $defs: _defs, definitions: _definitions, ...rest } = schema;
  return rest;
}

function decodePointerSegment(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A malformed escape names no definition; the lookup then fails closed.
  }
  return decoded.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Whether a schema uses a reference anywhere (cheap pre-check so plain schemas are not copied). */
export function hasSchemaRefs(schema: JsonSchema): boolean {
  return '$defs' in schema || 'definitions' in schema || JSON.stringify(schema).includes('"$ref"');
}
