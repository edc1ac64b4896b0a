import type { JsonSchema } from '../tools/tool-types.js';

const MAX_TEXT = 2000;
const CONSTRAINTS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'format', 'minItems', 'maxItems'] as const;

/** The documentation a schema carries: its description, then its constraints and default as tags. */
export function schemaDocLines(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as JsonSchema;
  const lines: string[] = [];
  if (typeof node.description === 'string' && node.description.trim().length > 0) lines.push(...clip(node.description).split(/\r?\n/));
  for (const key of CONSTRAINTS) {
    const value = node[key];
    if (typeof value === 'number' || typeof value === 'string') lines.push(`@${key} ${clip(String(value))}`);
  }
  if ('default' in node) lines.push(`@default ${clip(safeJson(node.default))}`);
  return lines;
}

/** A `/** … *\/` block. Nothing inside can close it early. */
export function docComment(lines: readonly string[], indent: string): string {
  if (lines.length === 0) return '';
  const body = lines.map((line) => `${indent} *${line.length > 0 ? ' ' : ''}${line.replace(/\*\//g, '*\\/')}`);
  return [`${indent}/**`, ...body, `${indent} */`].join('\n');
}

/** A local `$ref` (`#/$defs/x`, `#/definitions/x`) inside the root schema; anything else is unknown. */
export function resolveRef(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter((part) => part.length > 0)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return '(not JSON)';
  }
}
