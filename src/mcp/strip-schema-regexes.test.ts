import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createPolicy, createToolRegistry, type JsonSchema, type McpCallInput } from '../core/internal.js';
import { deepFreeze } from '../core/tools/deep-freeze.js';
import { compileJsonSchema } from '../core/tools/schema-validator.js';
import { buildUpstreamTool } from './build-upstream-tool.js';
import { buildDefinition, type Emit } from './discover-server-tools.js';
import type { McpServerConfig } from './mcp-types.js';
import { checkRegexFree, stripSchemaRegexes } from './strip-schema-regexes.js';

const EVIL = '^(a+)+$';
const HOSTILE = `${'a'.repeat(39)}!`;

/** Whether the hostile pattern is anywhere in `schema` (as a pattern or a patternProperties key). */
function hasHostilePattern(schema: unknown): boolean {
  return JSON.stringify(schema).includes('(a+)+');
}

function accepts(schema: JsonSchema, value: unknown): boolean {
  const result = compileJsonSchema(schema)(value);
  return !(result instanceof Promise) && result.ok;
}

describe('stripSchemaRegexes', () => {
  it('removes pattern and format from schemas, and keeps properties named pattern, format or patternProperties', () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: EVIL, description: 'a property named pattern' },
        format: { type: 'string', format: 'email' },
        patternProperties: { type: 'integer' },
      },
      required: ['pattern', 'format'],
      additionalProperties: false,
    };
    expect(stripSchemaRegexes(schema)).toEqual({
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'a property named pattern' },
        format: { type: 'string' },
        patternProperties: { type: 'integer' },
      },
      required: ['pattern', 'format'],
      additionalProperties: false,
    });
  });

  it('removes uniqueItems, which ajv checks in quadratic time, and keeps a property named uniqueItems', () => {
    const schema = { type: 'object', properties: { uniqueItems: { type: 'array', uniqueItems: true, items: { type: 'array', uniqueItems: true } } } };
    const stripped = stripSchemaRegexes(schema);
    expect(stripped).toEqual({ type: 'object', properties: { uniqueItems: { type: 'array', items: { type: 'array' } } } });
    // 20,000 distinct objects: about 14 s of the event loop with the keyword, at once without it.
    const started = performance.now();
    expect(accepts(stripped, { uniqueItems: Array.from({ length: 20_000 }, (_, index) => [{ a: index }]) })).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('removes an enum of more than 256 values, which ajv checks one by one for each item, and keeps a shorter one', () => {
    const long = Array.from({ length: 30_000 }, (_, index) => index);
    const stripped = stripSchemaRegexes({ type: 'object', properties: { x: { type: 'array', items: { enum: long } }, y: { enum: long.slice(0, 256) } } });
    expect(stripped).toEqual({ type: 'object', properties: { x: { type: 'array', items: {} }, y: { enum: long.slice(0, 256) } } });
    expect(accepts(stripped, { y: 255 })).toBe(true);
    expect(accepts(stripped, { y: 256 })).toBe(false);
  });

  it('does not modify its input, frozen or not, and shares no object with it', () => {
    const schema = {
      type: 'object',
      properties: { q: { type: 'string', pattern: EVIL, default: { pattern: 'kept' } } },
      patternProperties: { '^x-': { type: 'string', pattern: EVIL } },
      $defs: { d: { type: 'string', format: 'uri' } },
    };
    const before = structuredClone(schema);
    const stripped = stripSchemaRegexes(schema);
    expect(schema).toEqual(before);
    expect(stripSchemaRegexes(deepFreeze(structuredClone(schema)))).toEqual(stripped);
    const inputObjects = new Set<unknown>();
    const collect = (value: unknown, into: Set<unknown>): void => {
      if (typeof value !== 'object' || value === null) return;
      into.add(value);
      for (const child of Object.values(value)) collect(child, into);
    };
    collect(schema, inputObjects);
    const outputObjects = new Set<unknown>();
    collect(stripped, outputObjects);
    expect([...outputObjects].filter((object) => inputObjects.has(object))).toEqual([]);
  });

  it('reaches every subschema location of draft-07 and 2020-12', () => {
    const s = () => ({ type: 'string', pattern: EVIL, format: 'date-time' });
    const schema = {
      type: 'object',
      properties: { a: s(), nested: { type: 'object', properties: { deeper: { type: 'array', items: s() } } } },
      additionalProperties: s(),
      propertyNames: s(),
      unevaluatedProperties: s(),
      dependentSchemas: { a: { properties: { b: s() } } },
      dependencies: { a: { properties: { c: s() } }, b: ['a'] },
      $defs: { d: s(), e: { $defs: { f: s() } } },
      definitions: { g: s() },
      allOf: [s()],
      anyOf: [s(), true],
      oneOf: [s()],
      not: s(),
      if: s(),
      then: s(),
      else: s(),
      contentSchema: s(),
      'x-vendor': { hidden: s(), list: [s()] },
    };
    const arrays = {
      type: 'array',
      items: s(),
      prefixItems: [s()],
      contains: s(),
      unevaluatedItems: s(),
    };
    const draft07Tuple = { type: 'array', items: [s(), s()], additionalItems: s() };
    for (const input of [schema, arrays, draft07Tuple]) {
      const stripped = stripSchemaRegexes(input);
      expect(hasHostilePattern(stripped)).toBe(false);
      expect(JSON.stringify(stripped)).not.toContain('"format"');
    }
    // Structure other than the regex keywords is intact.
    const stripped = stripSchemaRegexes(schema) as typeof schema;
    expect(stripped.dependencies.b).toEqual(['a']);
    expect(stripped.anyOf).toEqual([{ type: 'string' }, true]);
    expect(stripped.$defs.e.$defs.f).toEqual({ type: 'string' });
    expect((stripped.properties.nested as { properties: { deeper: unknown } }).properties.deeper).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('copies const, enum, default and examples as data, even when they look like schemas', () => {
    const data = { pattern: EVIL, format: 'email', patternProperties: { a: {} } };
    const schema = { type: 'object', properties: { q: { const: data, enum: [data], default: data, examples: [data] } } };
    const q = (stripSchemaRegexes(schema) as typeof schema).properties.q;
    expect(q).toEqual({ const: data, enum: [data], default: data, examples: [data] });
  });

  it('keeps a __proto__ property a property', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","pattern":"^(a+)+$"}},"required":["__proto__"]}') as JsonSchema;
    const stripped = stripSchemaRegexes(schema) as { properties: object };
    expect(Object.getPrototypeOf(stripped.properties)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(stripped.properties, '__proto__')?.value).toEqual({ type: 'string' });
  });

  it('folds patternProperties into additionalProperties: never stricter than the upstream, still refusing what fits no schema', () => {
    const closed = { type: 'object', properties: { id: { type: 'integer' } }, patternProperties: { '^x-': { type: 'string' }, '^n-': { type: 'number' } }, additionalProperties: false };
    const folded = stripSchemaRegexes(closed);
    expect(folded).toEqual({ type: 'object', properties: { id: { type: 'integer' } }, additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, false] } });
    // The upstream accepts these: so does toolgate.
    expect(accepts(folded, { id: 1, 'x-a': 'text', 'n-b': 2 })).toBe(true);
    // Nothing the upstream allows is refused; a value no schema takes is.
    expect(accepts(folded, { id: 1, other: true })).toBe(false);
    expect(accepts(folded, { id: 'one' })).toBe(false);

    // Without additionalProperties, or with a pattern that takes anything: members are evaluated, not refused.
    const open = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', patternProperties: { '^x-': { type: 'string' } }, unevaluatedProperties: false };
    expect(accepts(open, { 'x-a': 'text' })).toBe(true);
    const foldedOpen = stripSchemaRegexes(open);
    expect(foldedOpen).toEqual({ $schema: open.$schema, type: 'object', additionalProperties: true, unevaluatedProperties: false });
    expect(accepts(foldedOpen, { 'x-a': 'text' })).toBe(true);
    expect(stripSchemaRegexes({ type: 'object', patternProperties: { '.*': {} }, additionalProperties: false })).toEqual({ type: 'object', additionalProperties: true });
    // An empty patternProperties is simply dropped.
    expect(stripSchemaRegexes({ type: 'object', patternProperties: {}, additionalProperties: false })).toEqual({ type: 'object', additionalProperties: false });
    // The pattern schemas themselves are stripped.
    expect(stripSchemaRegexes({ type: 'object', patternProperties: { '^(a+)+$': { type: 'string', pattern: EVIL } }, additionalProperties: false })).toEqual({
      type: 'object',
      additionalProperties: { anyOf: [{ type: 'string' }, false] },
    });
  });

  it('validates a hostile argument at once where the upstream schema would not return', () => {
    const schema = { type: 'object', properties: { q: { type: 'string', pattern: EVIL } }, patternProperties: { '^(a+)+$': { type: 'string' } }, required: ['q'] };
    const started = performance.now();
    expect(accepts(stripSchemaRegexes(schema), { q: HOSTILE, [HOSTILE]: 'x' })).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('strips a 2019-09 schema, its array of items included, and validates it as 2019-09 reads it', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string', pattern: EVIL }, { type: 'integer' }] } }, dependentRequired: { pair: ['id'] } };
    const stripped = stripSchemaRegexes(schema);
    expect(hasHostilePattern(stripped)).toBe(false);
    expect(checkRegexFree(stripped)).toBeUndefined();
    const started = performance.now();
    expect(accepts(stripped, { id: 1, pair: [HOSTILE, 2] })).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
    // Read as 2019-09: the second item must be an integer, and a pair needs an id.
    expect(accepts(stripped, { id: 1, pair: ['a', 'b'] })).toBe(false);
    expect(accepts(stripped, { pair: ['a', 2] })).toBe(false);
  });

  it('turns a schema nested past the core ceiling into false rather than recursing on', () => {
    let deep: Record<string, unknown> = { type: 'string', pattern: EVIL };
    for (let index = 0; index < 200; index += 1) deep = { not: deep };
    expect(hasHostilePattern(stripSchemaRegexes(deep))).toBe(false);
  });
});

describe('checkRegexFree', () => {
  it('passes references to the root definitions without compiling, and a schema without references', () => {
    expect(checkRegexFree(stripSchemaRegexes({ type: 'object', properties: { q: { $ref: '#/$defs/q' }, r: { $ref: '#/definitions/r' } }, $defs: { q: { type: 'string', pattern: EVIL } }, definitions: { r: { $ref: '#' } } }))).toBeUndefined();
    expect(checkRegexFree(stripSchemaRegexes({ type: 'object', properties: { q: { type: 'string', pattern: EVIL } } }))).toBeUndefined();
  });

  it('passes a reference into a vendor keyword (stripped like a schema)', () => {
    const schema = { type: 'object', 'x-hidden': { type: 'string', pattern: EVIL }, properties: { q: { $ref: '#/x-hidden' } } };
    const stripped = stripSchemaRegexes(schema);
    expect(checkRegexFree(stripped)).toBeUndefined();
    expect(accepts(stripped, { q: HOSTILE })).toBe(true);
  });

  it.each([
    ['default', { type: 'object', properties: { q: { $ref: '#/properties/r/default' }, r: { default: { type: 'string', pattern: EVIL } } } }],
    ['const', { type: 'object', properties: { q: { $ref: '#/properties/r/const' }, r: { const: { type: 'string', pattern: EVIL } } } }],
    ['examples', { type: 'object', properties: { q: { $ref: '#/properties/r/examples/0' }, r: { examples: [{ pattern: EVIL }] } } }],
    ['enum in 2020-12', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { q: { $ref: '#/properties/r/enum/0' }, r: { enum: [{ pattern: EVIL }] } } }],
    ['enum in 2019-09', { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', properties: { q: { $ref: '#/properties/r/enum/0' }, r: { enum: [{ pattern: EVIL }] } } }],
  ])('refuses a reference into %s data, which the walk does not strip', (_label, schema) => {
    expect(checkRegexFree(stripSchemaRegexes(schema))).toMatch(/regular expression/);
  });

  it('refuses a reference to a schema outside itself (another tool’s schema in the shared compiler)', () => {
    expect(checkRegexFree(stripSchemaRegexes({ type: 'object', properties: { q: { $ref: 'https://evil.example/other.json#/properties/r/default' } } }))).toMatch(/outside itself/);
  });

  it('passes a schema with references the walk covers even when it must compile it', () => {
    const schema = { type: 'object', properties: { q: { $id: 'https://example.com/q', $defs: { s: { type: 'string', pattern: EVIL } }, $ref: '#/$defs/s' } } };
    const stripped = stripSchemaRegexes(schema);
    expect(checkRegexFree(stripped)).toBeUndefined();
    // The check holds no schema afterwards: the same $id compiles again.
    expect(checkRegexFree(stripped)).toBeUndefined();
  });
});

describe('buildUpstreamTool with an untrusted upstream', () => {
  const untrusted: McpServerConfig = { name: 'up', transport: 'stdio', command: 'unused' };
  const trusted: McpServerConfig = { ...untrusted, trusted: true };
  const inputSchema: Tool['inputSchema'] = { type: 'object', properties: { q: { type: 'string', pattern: EVIL } }, required: ['q'] };
  const tool: Tool = { name: 'lookup', description: 'Look up.', inputSchema, outputSchema: { type: 'object', properties: { hit: { type: 'string', pattern: EVIL } } } };

  function setup(server: McpServerConfig, offered: Tool = tool) {
    const calls: McpCallInput[] = [];
    const mcp = {
      call: (input: McpCallInput) => {
        calls.push(input);
        return Promise.resolve({ content: [{ type: 'text', text: 'found' }], structuredContent: { hit: HOSTILE } });
      },
    };
    const definition = buildUpstreamTool({ server, tool: offered, name: 'mcp_up_lookup', description: 'Look up.' });
    const registry = createToolRegistry({ tools: [definition], host: { mcp }, policy: createPolicy({ mcpServers: ['up'] }) });
    return { calls, definition, registry };
  }

  it('validates a 40-character hostile argument (and result) without running the pattern, and the call reaches the upstream', async () => {
    const { calls, registry } = setup(untrusted);
    const started = performance.now();
    const outcome = await registry.dispatch({ callId: 'c1', name: 'mcp_up_lookup', arguments: { q: HOSTILE } }, { grantedTools: ['mcp_up_lookup'] });
    // With the pattern run, this argument alone would take hours: the bound is generous on purpose.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.value).toEqual({ hit: HOSTILE });
    expect(calls).toEqual([{ server: 'up', tool: 'lookup', arguments: { q: HOSTILE }, targetsJudged: true }]);
    // The other keywords still hold.
    const wrongType = await registry.dispatch({ callId: 'c2', name: 'mcp_up_lookup', arguments: { q: 42 } }, { grantedTools: ['mcp_up_lookup'] });
    expect(!wrongType.ok && wrongType.error.code).toBe('ARGS_INVALID');
  });

  it('shows the model the upstream input schema as it was sent, pattern included, and a client the output schema toolgate checks', () => {
    const { definition, registry } = setup(untrusted);
    expect(definition.inputJsonSchema).toBe(inputSchema);
    expect(registry.list()[0]?.inputSchema).toEqual(inputSchema);
    expect(registry.project('mcp')[0]?.inputSchema).toEqual(inputSchema);
    // A client compiles the output schemas it lists, and checks structured values against them: not the upstream's patterns.
    expect(definition.outputJsonSchema).toBeUndefined();
    expect(registry.project('mcp')[0]?.outputSchema).toEqual({ type: 'object', properties: { hit: { type: 'string' } } });
  });

  it("keeps a trusted server's patterns", async () => {
    const benign: Tool = { name: 'lookup', inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$' } } } };
    const { definition, registry } = setup(trusted, benign);
    expect(definition.input).toBe(benign.inputSchema);
    expect(definition.inputJsonSchema).toBeUndefined();
    const outcome = await registry.dispatch({ callId: 'c3', name: 'mcp_up_lookup', arguments: { q: 'NOT lower' } }, { grantedTools: ['mcp_up_lookup'] });
    expect(!outcome.ok && outcome.error.code).toBe('ARGS_INVALID');
    // Untrusted, the same argument reaches the upstream, which applies its own pattern.
    const loose = setup(untrusted, benign);
    const passed = await loose.registry.dispatch({ callId: 'c4', name: 'mcp_up_lookup', arguments: { q: 'NOT lower' } }, { grantedTools: ['mcp_up_lookup'] });
    expect(passed.ok).toBe(true);
  });

  it('skips and reports a tool whose reference would reach an unstripped pattern', () => {
    const events: { name: string; payload: unknown }[] = [];
    const emit: Emit = (name, payload) => events.push({ name, payload });
    const sneaky: Tool = { name: 'lookup', inputSchema: { type: 'object', properties: { q: { $ref: '#/properties/r/default' }, r: { default: { type: 'string', pattern: EVIL } } } } };
    expect(buildDefinition({ server: untrusted, emit }, sneaky, 'mcp_up_lookup')).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ name: 'tool-skipped', payload: { tool: 'lookup', error: { code: 'TOOL_DEFINITION_INVALID' } } });
    expect(JSON.stringify(events[0]?.payload)).toMatch(/regular expression/);
    // A trusted server's schema is its own business.
    expect(buildDefinition({ server: trusted, emit }, sneaky, 'mcp_up_lookup')).toBeDefined();
  });
});
