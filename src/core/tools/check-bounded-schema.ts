import type { JsonSchema } from './tool-types.js';

/**
 * The bounded JSON Schema subset, for schemas from untrusted
 * sources (MCP upstreams, packages): small, closed, explicitly bounded, with
 * nothing that references, branches or runs a regex. Returns the problems
 * found, each naming the JSON pointer where it is; empty means conforming.
 */
export const BOUNDED_SCHEMA_LIMITS = Object.freeze({
  maxDepth: 8,
  maxNodes: 256,
  maxProperties: 64,
  maxEnum: 64,
  maxItems: 256,
});

const ALLOWED_KEYWORDS = new Set([
  '$schema', 'type', 'title', 'description', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const',
  'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'uniqueItems',
]);

export function checkBoundedSchema(schema: JsonSchema, role: 'input' | 'output' = 'input'): string[] {
  const problems: string[] = [];
  let nodes = 0;

  const visit = (node: unknown, pointer: string, depth: number): void => {
    nodes += 1;
    if (nodes > BOUNDED_SCHEMA_LIMITS.maxNodes) {
      if (nodes === BOUNDED_SCHEMA_LIMITS.maxNodes + 1) problems.push(`${pointer || '/'}: more than ${BOUNDED_SCHEMA_LIMITS.maxNodes} schema nodes`);
      return;
    }
    if (depth > BOUNDED_SCHEMA_LIMITS.maxDepth) {
      problems.push(`${pointer || '/'}: deeper than ${BOUNDED_SCHEMA_LIMITS.maxDepth}`);
      return;
    }
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      problems.push(`${pointer || '/'}: a schema must be an object`);
      return;
    }
    const schemaNode = node as Record<string, unknown>;
    for (const keyword of Object.keys(schemaNode)) {
      if (!ALLOWED_KEYWORDS.has(keyword)) problems.push(`${pointer || '/'}: keyword "${keyword}" is not allowed`);
    }
    const enumValues = schemaNode.enum;
    if (enumValues !== undefined && (!Array.isArray(enumValues) || enumValues.length > BOUNDED_SCHEMA_LIMITS.maxEnum)) {
      problems.push(`${pointer || '/'}: enum must be an array of at most ${BOUNDED_SCHEMA_LIMITS.maxEnum} values`);
    }
    const type = schemaNode.type;
    if (typeof type !== 'string') {
      if (enumValues === undefined && schemaNode.const === undefined) problems.push(`${pointer || '/'}: needs a single "type"`);
      return;
    }
    switch (type) {
      case 'array':
        if (typeof schemaNode.maxItems !== 'number' || !(schemaNode.maxItems <= BOUNDED_SCHEMA_LIMITS.maxItems)) {
          problems.push(`${pointer || '/'}: an array needs "maxItems" of at most ${BOUNDED_SCHEMA_LIMITS.maxItems}`);
        }
        if (schemaNode.items === undefined) problems.push(`${pointer || '/'}: an array needs "items"`);
        else visit(schemaNode.items, `${pointer}/items`, depth + 1);
        return;
      case 'object': {
        if (schemaNode.additionalProperties !== false) problems.push(`${pointer || '/'}: an object needs "additionalProperties": false`);
        const properties = schemaNode.properties;
        if (properties === undefined) return;
        if (typeof properties !== 'object' || properties === null) {
          problems.push(`${pointer || '/'}: "properties" must be an object`);
          return;
        }
        const entries = Object.entries(properties);
        if (entries.length > BOUNDED_SCHEMA_LIMITS.maxProperties) {
          problems.push(`${pointer || '/'}: more than ${BOUNDED_SCHEMA_LIMITS.maxProperties} properties`);
        }
        for (const [key, child] of entries) visit(child, `${pointer}/properties/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, depth + 1);
        return;
      }
      default: {
        const problem = scalarProblem(schemaNode, type);
        if (problem !== undefined) problems.push(`${pointer || '/'}: ${problem}`);
      }
    }
  };

  visit(schema, '', 1);
  if (role === 'input' && schema.type !== 'object') problems.unshift('/: the input root must be an object');
  return problems;
}

/**
 * What a schema of a type that holds no other schema lacks: a string its
 * length bound, a number its safe lower and upper bounds (an enum or a const
 * bounds either); any type but these is not allowed.
 */
function scalarProblem(schemaNode: Record<string, unknown>, type: string): string | undefined {
  const listed = schemaNode.enum !== undefined || schemaNode.const !== undefined;
  switch (type) {
    case 'null':
    case 'boolean':
      return undefined;
    case 'string':
      return typeof schemaNode.maxLength !== 'number' && !listed ? 'a string needs "maxLength"' : undefined;
    case 'number':
    case 'integer': {
      // Safe bounds: finite, and within the range where a JSON number is exact.
      const bound = (value: unknown): boolean => typeof value === 'number' && Math.abs(value) <= Number.MAX_SAFE_INTEGER;
      const hasMin = bound(schemaNode.minimum) || bound(schemaNode.exclusiveMinimum);
      const hasMax = bound(schemaNode.maximum) || bound(schemaNode.exclusiveMaximum);
      return (!hasMin || !hasMax) && !listed ? 'a number needs explicit lower and upper bounds' : undefined;
    }
    default:
      return `type "${type}" is not allowed`;
  }
}
