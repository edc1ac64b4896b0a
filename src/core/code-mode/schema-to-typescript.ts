import type { JsonSchema } from '../tools/tool-types.js';
import { docComment, resolveRef, schemaDocLines } from './schema-docs.js';

/** Deeper schemas render as `unknown`: a bound on hostile (e.g. upstream MCP) schemas and on `$ref` cycles. */
const MAX_DEPTH = 8;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A TypeScript type for a JSON Schema. Total: anything it does not model
 * becomes `unknown`, never a syntax error, whatever the schema holds
 * (descriptions are escaped into comments, keys and literals are quoted).
 */
export function schemaToTypeScript(schema: unknown, options: TypeOptions): string {
  const indent = options.indent ?? '';
  const depth = options.depth ?? 0;
  const refs = options.refs ?? NO_REFS;
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema !== 'object' || schema === null || depth > MAX_DEPTH) return 'unknown';
  const node = schema as JsonSchema;
  const next = (child: unknown): string => schemaToTypeScript(child, { root: options.root, indent, depth: depth + 1, refs });

  if (typeof node.$ref === 'string') {
    // A reference already being expanded on this path is a cycle: it stays opaque.
    if (refs.has(node.$ref)) return 'unknown';
    return schemaToTypeScript(resolveRef(options.root, node.$ref), { root: options.root, indent, depth: depth + 1, refs: new Set([...refs, node.$ref]) });
  }
  if ('const' in node) return literal(node.const) ?? 'unknown';
  if (Array.isArray(node.enum)) return union(node.enum.map((entry) => literal(entry) ?? 'unknown'));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options_ = node[key];
    if (Array.isArray(options_) && options_.length > 0) return nullable(node, union(options_.map(next)));
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) return node.allOf.map((part) => `(${next(part)})`).join(' & ');

  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? inferType(node) : [node.type];
  if (types.length === 0) return 'unknown';
  return nullable(node, union(types.map((type) => typeFor(String(type), node, { root: options.root, indent, depth, refs }))));
}

interface TypeOptions {
  readonly root: JsonSchema;
  readonly indent?: string;
  readonly depth?: number;
  /** `$ref`s being expanded on the current path. */
  readonly refs?: ReadonlySet<string>;
}

const NO_REFS: ReadonlySet<string> = new Set();

function typeFor(type: string, node: JsonSchema, context: Required<TypeOptions>): string {
  const next = (child: unknown, indent = context.indent): string => schemaToTypeScript(child, { root: context.root, indent, depth: context.depth + 1, refs: context.refs });
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      if (Array.isArray(node.prefixItems)) return `[${node.prefixItems.map((item) => next(item)).join(', ')}]`;
      if (Array.isArray(node.items)) return `[${node.items.map((item) => next(item)).join(', ')}]`;
      return `Array<${next(node.items)}>`;
    case 'object':
      return objectType(node, context.indent, next);
    default:
      return 'unknown';
  }
}

function objectType(node: JsonSchema, indent: string, next: (child: unknown, indent?: string) => string): string {
  const properties = typeof node.properties === 'object' && node.properties !== null ? Object.entries(node.properties as Record<string, unknown>) : [];
  const required = new Set(Array.isArray(node.required) ? node.required.filter((name): name is string => typeof name === 'string') : []);
  const extra = node.additionalProperties;
  if (properties.length === 0) {
    if (extra === false) return 'Record<string, never>';
    return `Record<string, ${typeof extra === 'object' && extra !== null ? next(extra) : 'unknown'}>`;
  }
  const inner = `${indent}  `;
  const lines = ['{'];
  for (const [name, property] of properties) {
    const doc = docComment(schemaDocLines(property), inner);
    if (doc.length > 0) lines.push(doc);
    lines.push(`${inner}${IDENTIFIER.test(name) ? name : JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${next(property, inner)};`);
  }
  // An index signature must admit every declared property, so it is `unknown` beside them.
  if (extra !== false && extra !== undefined) lines.push(`${inner}[key: string]: unknown;`);
  lines.push(`${indent}}`);
  return lines.join('\n');
}

function inferType(node: JsonSchema): readonly string[] {
  if (node.properties !== undefined || node.additionalProperties !== undefined) return ['object'];
  if (node.items !== undefined || node.prefixItems !== undefined) return ['array'];
  return [];
}

function nullable(node: JsonSchema, type: string): string {
  return node.nullable === true && type !== 'unknown' ? `${type} | null` : type;
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 1 ? (unique[0] as string) : unique.map((type) => (type.includes('\n') || type.includes('&') ? `(${type})` : type)).join(' | ');
}

function literal(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
