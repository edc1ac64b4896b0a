import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { Ajv } from 'ajv';
import { type } from 'arktype';
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DuplicateToolError, ToolDefinitionError } from '../errors/tool-errors.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { memoryJournal } from '../dispatch/__fixtures__/pipeline-fixtures.js';
import { shapes, twoWaysDown } from './__fixtures__/costly-schemas.js';
import { defineTool } from './define-tool.js';
import type { AnyToolDefinition } from './tool-types.js';

const base = { name: 'tool_a', description: 'A tool.', input: { type: 'object', properties: { a: { type: 'string' } } }, dispatch: () => null } as const;
const good = (overrides: Record<string, unknown> = {}): AnyToolDefinition => ({ ...base, ...overrides }) as AnyToolDefinition;

/** Building a registry with `bad` among good tools throws this typed error, and no registry exists. */
function expectDefinitionError(bad: AnyToolDefinition, tool: string, field: string): ToolDefinitionError {
  let registry: unknown;
  let caught: unknown;
  try {
    registry = createToolRegistry({ tools: [good({ name: 'first' }), bad, good({ name: 'last' })] });
  } catch (error) {
    caught = error;
  }
  expect(registry).toBeUndefined();
  expect(caught).toBeInstanceOf(ToolDefinitionError);
  const error = caught as ToolDefinitionError;
  expect(error.code).toBe('TOOL_DEFINITION_INVALID');
  expect(error.tool).toBe(tool);
  expect(error.field).toBe(field);
  expect(error.message).toContain(field);
  return error;
}

describe('definition checks (each bad definition → a typed error naming the tool and the field)', () => {
  it.each([
    ['Upper', 'name'], ['1tool', 'name'], ['has-dash', 'name'], ['has.dot', 'name'], ['', 'name'], ['a'.repeat(65), 'name'], ['tool name', 'name'],
  ])('name %j', (name, field) => {
    expectDefinitionError(good({ name }), name, field);
  });

  it('accepts the longest valid name and underscores', () => {
    expect(createToolRegistry({ tools: [good({ name: 'a'.repeat(64) }), good({ name: 'a_1_b' })] }).list()).toHaveLength(2);
  });

  it.each(['1.2', 'v1.2.0', '^1.2.0', '1.2.x', '*', 'latest', '01.2.0', '1.2.0 ', ''])('version %j is not exact SemVer', (version) => {
    expectDefinitionError(good({ version }), 'tool_a', 'version');
  });

  it('accepts exact SemVer with prerelease and build metadata', () => {
    const registry = createToolRegistry({ tools: [good({ version: '1.2.0' }), good({ version: '1.3.0-rc.1+build.5' })] });
    expect(registry.list().map((tool) => tool.key)).toEqual(['tool_a@1.2.0', 'tool_a@1.3.0-rc.1+build.5']);
  });

  it('refuses a version that makes the wire name longer than 64 characters', () => {
    expectDefinitionError(good({ name: 'a'.repeat(56), version: '10.20.30' }), 'a'.repeat(56), 'version');
  });

  it.each([0, 0.5, -1, 3_600_001, Number.NaN, Number.POSITIVE_INFINITY, '100'])('timeoutMs %j', (timeoutMs) => {
    expectDefinitionError(good({ timeoutMs }), 'tool_a', 'timeoutMs');
  });

  it('accepts timeoutMs at both ends of 1 ms to 1 hour', () => {
    expect(createToolRegistry({ tools: [good({ name: 'fast', timeoutMs: 1 }), good({ name: 'slow', timeoutMs: 3_600_000 })] }).list()).toHaveLength(2);
  });

  it.each(['', '   ', undefined, 42])('description %j', (description) => {
    expectDefinitionError(good({ description }), 'tool_a', 'description');
  });

  it('permissions: at most 16 non-empty names', () => {
    expectDefinitionError(good({ permissions: Array.from({ length: 17 }, (_, index) => `p${index}`) }), 'tool_a', 'permissions');
    expectDefinitionError(good({ permissions: [''] }), 'tool_a', 'permissions');
    expectDefinitionError(good({ permissions: 'fs.read' }), 'tool_a', 'permissions');
    expect(createToolRegistry({ tools: [good({ permissions: Array.from({ length: 16 }, (_, index) => `p${index}`) })] }).list()).toHaveLength(1);
  });

  it.each([
    [{ input: { type: 'string' } }, 'input'],
    [{ input: { type: 'object', properties: { a: { type: 'strin' } } } }, 'input'],
    [{ input: { type: 'object', required: 'a' } }, 'input'],
    [{ input: null }, 'input'],
    [{ output: { type: 'nope' } }, 'output'],
    [{ input: z.string(), inputJsonSchema: { type: 'object', properties: { a: { type: 7 } } } }, 'inputJsonSchema'],
    [{ input: { '~standard': { version: 1, vendor: 'x' } } }, 'input'],
    [{ dispatch: 'run' }, 'dispatch'],
    [{ configOnly: 'token' }, 'configOnly'],
    [{ configOnly: [''] }, 'configOnly'],
    [{ source: 'npm' }, 'source'],
    [{ effect: 'delete' }, 'effect'],
    [{ risk: 'extreme' }, 'risk'],
    [{ journal: 'full' }, 'journal'],
    [{ policy: { egress: 'ftp' } }, 'policy.egress'],
    [{ schemaProfile: 'strict' }, 'schemaProfile'],
    [{ isConcurrencySafe: true }, 'isConcurrencySafe'],
    [{ policyTarget: 'path' }, 'policyTarget'],
  ])('%j → field %s', (overrides, field) => {
    expectDefinitionError(good(overrides), 'tool_a', field);
  });

  it('reserves run_code for the Code Mode transport', () => {
    expectDefinitionError(good({ name: 'run_code' }), 'run_code', 'name');
  });

  it('a duplicate name throws DuplicateToolError and builds nothing', () => {
    expect(() => createToolRegistry({ tools: [good(), good()] })).toThrow(DuplicateToolError);
    expect(() => createToolRegistry({ tools: [good({ version: '1.0.0' }), good({ version: '1.0.0' })] })).toThrow(DuplicateToolError);
    // A bare name beside a versioned one would be ambiguous.
    expect(() => createToolRegistry({ tools: [good(), good({ version: '1.0.0' })] })).toThrow(DuplicateToolError);
    // Versions whose wire names collide (`-` and `.` both travel as `_`).
    expect(() => createToolRegistry({ tools: [good({ version: '1.0.0-a.b' }), good({ version: '1.0.0-a-b' })] })).toThrow(/wire name/);
    // A plain tool named like a versioned tool's wire name.
    expect(() => createToolRegistry({ tools: [good({ version: '1.0.0' }), good({ name: 'tool_a__v1_0_0' })] })).toThrow(DuplicateToolError);
    expect(() => createToolRegistry({ tools: [good({ name: 'tool_a__v1_0_0' }), good({ version: '1.0.0' })] })).toThrow(DuplicateToolError);
    try {
      createToolRegistry({ tools: [good(), good()] });
    } catch (error) {
      expect((error as DuplicateToolError).code).toBe('DUPLICATE_TOOL');
      expect((error as DuplicateToolError).tool).toBe('tool_a');
    }
  });
});

describe('input schemas', () => {
  afterEach(() => vi.restoreAllMocks());

  const expectValidates = async (input: AnyToolDefinition['input'], extra: Record<string, unknown> = {}) => {
    const registry = createToolRegistry({
      tools: [defineTool({ name: 'echo', description: 'Echo.', input, ...extra, dispatch: (args: unknown) => args })],
      host: {},
    });
    const context = { grantedTools: ['echo'] };
    const ok = await registry.dispatch({ callId: '1', name: 'echo', arguments: { a: 'x' } }, context);
    const bad = await registry.dispatch({ callId: '2', name: 'echo', arguments: { a: 5 } }, context);
    expect(ok.ok).toBe(true);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.code).toBe('ARGS_INVALID');
    return registry.list()[0]!.inputSchema;
  };

  it('zod 4', async () => {
    expect(await expectValidates(z.object({ a: z.string() }))).toMatchObject({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });

  it('valibot through toStandardJsonSchema', async () => {
    expect(await expectValidates(toStandardJsonSchema(v.object({ a: v.string() })))).toMatchObject({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });

  it('a plain valibot schema with inputJsonSchema', async () => {
    const inputJsonSchema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    expect(await expectValidates(v.object({ a: v.string() }), { inputJsonSchema })).toEqual(inputJsonSchema);
  });

  it('a plain valibot schema without a JSON Schema is refused', () => {
    expectDefinitionError(good({ input: v.object({ a: v.string() }) }), 'tool_a', 'input');
  });

  it('arktype', async () => {
    expect(await expectValidates(type({ a: 'string' }))).toMatchObject({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('JSON Schema 2019-09 and 2020-12, each checked and judged by its own draft', async () => {
    for (const $schema of ['https://json-schema.org/draft/2019-09/schema', 'https://json-schema.org/draft/2020-12/schema']) {
      // `dependentRequired` is a keyword of both drafts, unknown to draft-07: judged as draft-07, b alone would pass.
      const input = { $schema, type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, dependentRequired: { b: ['a'] } };
      const registry = createToolRegistry({ tools: [good({ name: 'drafted', input })] });
      expect(await registry.dispatch({ callId: '1', name: 'drafted', arguments: { a: 'x', b: 'y' } }, { grantedTools: ['drafted'] }), $schema).toMatchObject({ ok: true });
      expect(await registry.dispatch({ callId: '2', name: 'drafted', arguments: { b: 'y' } }, { grantedTools: ['drafted'] }), $schema).toMatchObject({ ok: false, error: { code: 'ARGS_INVALID' } });
    }
  });

  it('plain JSON Schema, compiled once with ajv per tool version (not per call, snapshot or scope)', async () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    const definition = defineTool({ name: 'echo', description: 'Echo.', input: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, dispatch: (args: unknown) => args });
    const registry = createToolRegistry({ tools: [definition] });
    expect(compile).toHaveBeenCalledTimes(1);
    const next = registry.with([good({ name: 'other', input: { type: 'object' } })]).scope('agent', { restrict: { deny: ['other'] } });
    for (let index = 0; index < 5; index += 1) {
      await next.dispatch({ callId: String(index), name: 'echo', arguments: { a: 'x' } }, { grantedTools: ['echo'] });
    }
    // One more compilation: the other tool's schema. Never the echo schema again.
    expect(compile).toHaveBeenCalledTimes(2);
    expect(createToolRegistry({ tools: [definition] }).list()[0]!.inputSchema).toBe(registry.list()[0]!.inputSchema);
  });
});

describe('what checking a value may cost', () => {
  it('a schema that could check one value a million times or more is refused, saying why', () => {
    const error = expectDefinitionError(good({ input: twoWaysDown(22) }), 'tool_a', 'input');
    expect(error.message).toMatch(/could check one value against 1,000,000 or more of its schemas/);
    expectDefinitionError(good({ output: { type: 'object', allOf: [{ $ref: '#' }] } }), 'tool_a', 'output');
  });

  it('a value whose nodes times the checks of each pass the bound is refused unchecked; a smaller one is checked', async () => {
    const input = { type: 'object', properties: { x: { type: 'array', items: { anyOf: shapes(40) } } } };
    const registry = createToolRegistry({ tools: [good({ name: 'shapes', input })] });
    const context = { grantedTools: ['shapes'] };
    const items = (count: number) => Array.from({ length: count }, () => ({ k39: 1 }));
    // 500,000 checks / 41 schemas per node: 12,195 nodes. 13,000 numbers are within the arguments' 64 KiB.
    const refused = await registry.dispatch({ callId: '1', name: 'shapes', arguments: { x: Array.from({ length: 13_000 }, () => 0) } }, context);
    expect(refused).toMatchObject({ ok: false, error: { code: 'ARGS_INVALID' } });
    if (!refused.ok) expect(refused.error.message).toMatch(/too costly to check against its schema: more than 12,195 values, each checked against up to 41 schemas/);
    // Each item is two nodes, the object and its member.
    expect(await registry.dispatch({ callId: '2', name: 'shapes', arguments: { x: items(5_000) } }, context)).toMatchObject({ ok: true });
    expect(await registry.dispatch({ callId: '3', name: 'shapes', arguments: { x: [{ k40: 1 }] } }, context)).toMatchObject({ ok: false, error: { code: 'ARGS_INVALID' } });
  });

  it('a long string counts as a node for each 1,024 characters: each check of its length reads all of it', async () => {
    // 15 levels of `anyOf` the one below, twice: 131,070 checks for one string (32,768 of `maxLength`), within the bound as
    // one node. A string of 60,000 characters held the event loop seconds.
    const definitions: Record<string, unknown> = { d0: { maxLength: 1 } };
    for (let level = 1; level <= 15; level += 1) definitions[`d${level}`] = { anyOf: [{ $ref: `#/definitions/d${level - 1}` }, { $ref: `#/definitions/d${level - 1}` }] };
    const input = { type: 'object', definitions, properties: { x: { $ref: '#/definitions/d15' } } };
    const registry = createToolRegistry({ tools: [good({ name: 'lengths', input })] });
    const context = { grantedTools: ['lengths'] };
    const started = performance.now();
    const refused = await registry.dispatch({ callId: '1', name: 'lengths', arguments: { x: 'a'.repeat(60_000) } }, context);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(refused).toMatchObject({ ok: false, error: { code: 'ARGS_INVALID' } });
    if (!refused.ok) expect(refused.error.message).toMatch(/too costly to check against its schema/);
    const small = await registry.dispatch({ callId: '2', name: 'lengths', arguments: { x: 'a' } }, context);
    expect(small, JSON.stringify(small)).toMatchObject({ ok: true });
  });
});

describe('a built-in definition’s schemas', () => {
  afterEach(() => vi.restoreAllMocks());

  it('compile when a call first needs them, once; any other definition’s at registration', async () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    const checkSchema = vi.spyOn(Ajv.prototype, 'validateSchema');
    const input = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const output = { type: 'object', properties: { b: { type: 'string' } } };
    const builtin = defineTool({ name: 'echo', description: 'Echo.', input, output, source: 'builtin', dispatch: (args: Record<string, unknown>) => ({ b: String(args.a) }) });
    const registry = createToolRegistry({ tools: [builtin] });
    expect(compile).not.toHaveBeenCalled();
    // A valid call is accepted by the direct walk; its result is checked against the output schema.
    expect(await registry.dispatch({ callId: '1', name: 'echo', arguments: { a: 'x' } }, { grantedTools: ['echo'] })).toMatchObject({ ok: true, value: { b: 'x' } });
    expect(compile).toHaveBeenCalledTimes(1);
    // An invalid one goes to ajv, which reports it.
    const refused = await registry.dispatch({ callId: '2', name: 'echo', arguments: { a: 1 } }, { grantedTools: ['echo'] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'ARGS_INVALID' } });
    await registry.dispatch({ callId: '3', name: 'echo', arguments: { a: 2 } }, { grantedTools: ['echo'] });
    expect(compile).toHaveBeenCalledTimes(2);
    // The product's own schemas are not checked against the meta-schema as they compile; anyone else's are.
    expect(checkSchema).not.toHaveBeenCalled();
    createToolRegistry({ tools: [good({ name: 'plugin_tool', input })] });
    expect(compile).toHaveBeenCalledTimes(3);
    expect(checkSchema).toHaveBeenCalled();
  });

  it('that does not compile refuses the call as invalid arguments, never runs the body, and refuses no other tool', async () => {
    const body = vi.fn(() => 'ran');
    // Valid against the meta-schema, but its reference resolves to nothing: ajv throws as it compiles.
    const broken = defineTool({ name: 'broken', description: 'Broken.', input: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } }, source: 'builtin', dispatch: body });
    const registry = createToolRegistry({ tools: [broken, good()] });
    // The direct walk gives up on a $ref, so the schema's own validator must decide: it cannot be compiled.
    for (const callId of ['1', '2']) {
      expect(await registry.dispatch({ callId, name: 'broken', arguments: { a: 'x' } }, { grantedTools: ['broken'] })).toMatchObject({ ok: false, error: { code: 'ARGS_INVALID', message: expect.stringContaining('does not compile') } });
    }
    expect(body).not.toHaveBeenCalled();
    expect(await registry.dispatch({ callId: '3', name: 'tool_a', arguments: { a: 'x' } }, { grantedTools: ['tool_a'] })).toMatchObject({ ok: true });
    // Declared by any other source, the same schema refuses the tool at registration.
    expect(() => createToolRegistry({ tools: [{ ...broken, source: 'plugin' }] })).toThrow(ToolDefinitionError);
  });

  it('whose output schema does not compile fails the call with a receipt that settles its claim', async () => {
    const journal = memoryJournal();
    const body = vi.fn(() => ({ b: 'x' }));
    const output = { type: 'object', properties: { b: { $ref: '#/definitions/missing' } } };
    const effect = defineTool({ name: 'effect', description: 'Effect.', input: { type: 'object', properties: { a: { type: 'string' } } }, output, source: 'builtin', journal: 'effect', dispatch: body });
    const outcome = await createToolRegistry({ tools: [effect], journal }).dispatch({ callId: '1', name: 'effect', arguments: { a: 'x' } }, { grantedTools: ['effect'] });
    // The body ran (its effect happened): the call fails, typed, and the journal holds its receipt, so no claim stays open.
    expect(body).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'OUTPUT_INVALID' } });
    expect(journal.settled).toHaveLength(1);
    expect(journal.settled[0]).toMatchObject({ claim: { claimId: 'claim-1' }, input: { ok: false } });
  });
});

describe('configOnly', () => {
  const definition = defineTool({
    name: 'call_api',
    description: 'Call an API.',
    input: z.object({ query: z.string(), apiKey: z.string(), region: z.string().optional() }),
    configOnly: ['apiKey', 'region'],
    dispatch: (args: { query: string; apiKey: string; region?: string | undefined }) => args,
  });

  it('is removed from the model-visible schema, its properties and required', () => {
    const registry = createToolRegistry({ tools: [definition] });
    const schema = registry.list()[0]!.inputSchema as { properties: object; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['query']);
    expect(schema.required).toEqual(['query']);
    for (const provider of ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const) {
      expect(JSON.stringify(registry.project(provider))).not.toContain('apiKey');
    }
    expect(JSON.stringify(registry.schemas())).not.toContain('region');
  });

  it('is never accepted from a model: the configured value wins, and without one the call is invalid', async () => {
    const registry = createToolRegistry({ tools: [definition] });
    const configured = await registry.dispatch(
      { callId: '1', name: 'call_api', arguments: { query: 'q', apiKey: 'from-model', region: 'from-model' } },
      { grantedTools: ['call_api'], config: { values: { apiKey: 'from-config' } } },
    );
    expect(configured.ok && configured.value).toEqual({ query: 'q', apiKey: 'from-config' });
    const unconfigured = await registry.dispatch({ callId: '2', name: 'call_api', arguments: { query: 'q', apiKey: 'from-model' } }, { grantedTools: ['call_api'] });
    expect(unconfigured.ok).toBe(false);
  });
});

describe('configOnly on a composed root', () => {
  it('is refused (TOOL_DEFINITION_INVALID, field configOnly) when the root is a $ref, has an allOf or has no properties', () => {
    const intersection = z.object({ message: z.string() }).and(z.object({ webhookUrl: z.string() }));
    const referenced = {
      type: 'object',
      $ref: '#/$defs/A',
      $defs: { A: { type: 'object', properties: { amount: { type: 'number' }, accountId: { type: 'string' } }, required: ['amount', 'accountId'] } },
    };
    const cases: [unknown, string][] = [
      [referenced, 'accountId'],
      [{ type: 'object', properties: { a: { type: 'string' } }, allOf: [{ properties: { token: { type: 'string' } }, required: ['token'] }] }, 'token'],
      [{ type: 'object' }, 'token'],
    ];
    for (const [input, hidden] of cases) {
      const error = expectDefinitionError(good({ input, configOnly: [hidden] }), 'tool_a', 'configOnly');
      expect(error.code).toBe('TOOL_DEFINITION_INVALID');
    }
    // The same roots without configOnly still register.
    expect(createToolRegistry({ tools: [good({ input: referenced })] }).list()).toHaveLength(1);
    // A zod intersection converts to one plain object root: the name is hidden there.
    const registry = createToolRegistry({ tools: [good({ input: intersection, configOnly: ['webhookUrl'] })] });
    expect(JSON.stringify(registry.list()[0]!.inputSchema)).not.toContain('webhookUrl');
    for (const provider of ['openai-responses', 'gemini'] as const) expect(JSON.stringify(registry.project(provider))).not.toContain('webhookUrl');
  });
});

describe('hostile schema sizes (any source)', () => {
  it('refuses a schema nested deeper than 64 levels, before anything recurses into it', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 5_000; depth += 1) deep = { type: 'object', properties: { child: deep } };
    const error = expectDefinitionError(good({ input: deep }), 'tool_a', 'input');
    expect(error.message).toContain('deeper than 64');
  });

  it('refuses a cyclic schema object and an enormous one', () => {
    const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    expectDefinitionError(good({ input: cyclic }), 'tool_a', 'input');
    const huge = { type: 'object', properties: Object.fromEntries(Array.from({ length: 30_000 }, (_, index) => [`p${index}`, { type: 'string' }])) };
    expect(expectDefinitionError(good({ input: huge }), 'tool_a', 'input').message).toContain('more than 20000');
  });

  it('checks the JSON Schema a Standard Schema converts to, and an explicit one', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 100; depth += 1) deep = { type: 'object', properties: { child: deep } };
    expectDefinitionError(good({ input: z.object({}), inputJsonSchema: deep }), 'tool_a', 'input');
  });
});
