import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError, DuplicateToolError, UnknownToolError } from '../errors/tool-errors.js';
import { defineTool } from '../tools/define-tool.js';
import type { AnyToolDefinition } from '../tools/tool-types.js';
import { createToolRegistry } from './create-tool-registry.js';

const tool = (name: string, extra: Partial<AnyToolDefinition> = {}): AnyToolDefinition =>
  ({ name, description: `The ${name} tool.`, input: { type: 'object', properties: { n: { type: 'number' } } }, dispatch: () => name, ...extra }) as AnyToolDefinition;

const names = (registry: { list(): readonly { key: string }[] }) => registry.list().map((info) => info.key);

describe('immutability', () => {
  it('is frozen, has no register, and with() leaves the old snapshot untouched', () => {
    const registry = createToolRegistry({ tools: [tool('alpha')] });
    expect(Object.isFrozen(registry)).toBe(true);
    expect('register' in registry).toBe(false);
    expect(() => Object.assign(registry, { get: () => undefined })).toThrow(TypeError);
    const next = registry.with([tool('beta')]);
    expect(names(registry)).toEqual(['alpha']);
    expect(names(next)).toEqual(['alpha', 'beta']);
    expect(registry.get('beta')).toBeUndefined();
    expect(names(next.with([], { remove: ['alpha'] }))).toEqual(['beta']);
    expect(names(next)).toEqual(['alpha', 'beta']);
  });

  it('freezes what it hands out', () => {
    const registry = createToolRegistry({ tools: [tool('alpha')] });
    expect(Object.isFrozen(registry.list())).toBe(true);
    expect(Object.isFrozen(registry.list()[0])).toBe(true);
    expect(Object.isFrozen(registry.list()[0]!.inputSchema)).toBe(true);
    expect(Object.isFrozen((registry.list()[0]!.inputSchema as { properties: object }).properties)).toBe(true);
  });

  it('a bad tool in with() throws and the registry it was called on still works', () => {
    const registry = createToolRegistry({ tools: [tool('alpha')] });
    expect(() => registry.with([tool('alpha')])).toThrow(/more than once/);
    expect(() => registry.with([tool('Bad')])).toThrow(/name/);
    expect(names(registry)).toEqual(['alpha']);
  });

  it('checks limits and the tools list', () => {
    expect(() => createToolRegistry({ tools: [], limits: { maxInputBytes: 0 } })).toThrow(ConfigurationError);
    expect(() => createToolRegistry({ tools: [], limits: { maxOutputBytes: 1.5 } })).toThrow(ConfigurationError);
    expect(() => createToolRegistry({ tools: 'alpha' as unknown as AnyToolDefinition[] })).toThrow(ConfigurationError);
  });

  it('shows the limits in force, defaults filled in', () => {
    expect(createToolRegistry({ tools: [] }).limits).toEqual({
      maxInputBytes: 64 * 1024,
      maxOutputBytes: 256 * 1024,
      content: { maxBytes: 32 * 1024, maxLines: 2000 },
      maxConcurrentCalls: 8,
      maxQueuedCalls: 1024,
    });
    expect(createToolRegistry({ tools: [], limits: { maxOutputBytes: 1000, content: { maxLines: 10 } } }).limits).toMatchObject({ maxOutputBytes: 1000, content: { maxBytes: 32 * 1024, maxLines: 10 } });
  });

  it('enforces a configured canonical input limit', async () => {
    const registry = createToolRegistry({ tools: [tool('alpha', { input: { type: 'object', properties: { s: { type: 'string' } } } })], limits: { maxInputBytes: 32 } });
    const small = await registry.dispatch({ callId: '1', name: 'alpha', arguments: { s: 'x' } }, { grantedTools: ['alpha'] });
    const large = await registry.dispatch({ callId: '2', name: 'alpha', arguments: { s: 'x'.repeat(64) } }, { grantedTools: ['alpha'] });
    expect(small.ok).toBe(true);
    expect(!large.ok && large.error.code).toBe('ARGS_INVALID');
  });

  it('enforces a configured canonical output limit on bounded tools', async () => {
    const input = { type: 'object', properties: {}, additionalProperties: false };
    const big = tool('big', { schemaProfile: 'bounded', input, dispatch: () => 'x'.repeat(100) });
    const registry = createToolRegistry({ tools: [big], limits: { maxOutputBytes: 64 } });
    const outcome = await registry.dispatch({ callId: '1', name: 'big', arguments: {} }, { grantedTools: ['big'] });
    expect(!outcome.ok && outcome.error.code).toBe('OUTPUT_INVALID');
    const roomy = await createToolRegistry({ tools: [big] }).dispatch({ callId: '1', name: 'big', arguments: {} }, { grantedTools: ['big'] });
    expect(roomy.ok).toBe(true);
  });

  it('bounds an MCP server’s structured value by the output ceiling, not its text, which the content’s ceiling cuts', async () => {
    const upstream = (value: unknown): AnyToolDefinition => tool('up', { source: 'mcp', dispatch: () => value });
    const run = (value: unknown) => createToolRegistry({ tools: [upstream(value)], limits: { maxOutputBytes: 64 } }).dispatch({ callId: '1', name: 'up', arguments: {} }, { grantedTools: ['up'] });
    const over = await run({ text: 'x'.repeat(100) });
    expect(!over.ok && over.error.message).toBe('Tool "up" returned an invalid result: the structured result exceeds 64 bytes.');
    // Its text is measured in UTF-8: 30 characters of two bytes each are over, 20 are not.
    expect((await run({ t: '\u00e9'.repeat(30) })).ok).toBe(false);
    expect((await run({ t: 'é'.repeat(20) })).ok).toBe(true);
    expect((await run('x'.repeat(100))).ok).toBe(true);
    const plugin = await createToolRegistry({ tools: [tool('own', { dispatch: () => ({ text: 'x'.repeat(100) }) })], limits: { maxOutputBytes: 64 } }).dispatch(
      { callId: '1', name: 'own', arguments: {} },
      { grantedTools: ['own'] },
    );
    expect(plugin.ok).toBe(true);
  });
});

describe('versions and exact resolution', () => {
  const registry = createToolRegistry({ tools: [tool('search', { version: '1.2.0' }), tool('search', { version: '2.0.0-beta.1' }), tool('single', { version: '3.0.0' }), tool('plain')] });

  it('pins name@version; a bare name resolves only when one version exists', () => {
    expect(registry.get('search@1.2.0')?.version).toBe('1.2.0');
    expect(registry.get('search@2.0.0-beta.1')?.version).toBe('2.0.0-beta.1');
    expect(registry.get('search')).toBeUndefined();
    expect(registry.get('single')?.version).toBe('3.0.0');
    expect(registry.get('single@3.0.0')?.version).toBe('3.0.0');
    expect(registry.get('plain')?.name).toBe('plain');
  });

  it.each(['search@latest', 'search@*', 'search@1', 'search@1.2', 'search@^1.2.0', 'Search', 'search ', 'searc', 'plain@1.0.0', 'plain@', '@1.2.0', 'toString', '__proto__', 'constructor'])(
    'never resolves %j (no latest, wildcard or fuzzy match)',
    (name) => {
      expect(registry.get(name)).toBeUndefined();
    },
  );

  it('resolves the wire name a model calls (`name__v1_2_0`) to exactly that version', async () => {
    expect(registry.get('search__v1_2_0')?.version).toBe('1.2.0');
    expect(registry.get('search__v2_0_0_beta_1')?.version).toBe('2.0.0-beta.1');
    expect(registry.get('search__v9_9_9')).toBeUndefined();
    expect(registry.get('plain__v1_0_0')).toBeUndefined();
    const outcome = await registry.dispatch({ callId: '1', name: 'search__v1_2_0', arguments: {} }, { grantedTools: ['search'] });
    expect(outcome.ok && outcome.value).toBe('search');
    expect(registry.project('openai-chat').map((entry) => entry.function.name)).toEqual(['plain', 'search__v1_2_0', 'search__v2_0_0_beta_1', 'single__v3_0_0']);
  });

  it('an unknown name gives UnknownToolError listing what the caller can see', async () => {
    const outcome = await registry.dispatch({ callId: '1', name: 'serch', arguments: {} }, { grantedTools: ['plain', 'search'] });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(UnknownToolError);
    expect((outcome.error as UnknownToolError).availableTools).toEqual(['plain', 'search@1.2.0', 'search@2.0.0-beta.1']);
    const ambiguous = await registry.dispatch({ callId: '2', name: 'search', arguments: {} }, { grantedTools: ['search'] });
    expect(!ambiguous.ok && ambiguous.error.code).toBe('UNKNOWN_TOOL');
  });
});

describe('scopes', () => {
  const globals = [tool('read'), tool('write'), tool('fetch'), tool('shared')];
  const registry = createToolRegistry({ tools: globals, reserved: ['deferred'] });

  it('agent-local tools shadow same-named globals in that scope only', async () => {
    const local = tool('shared', { description: 'The local shared tool.', dispatch: () => 'local' });
    const scoped = registry.scope('coder', { tools: [local] });
    expect(scoped.agent).toBe('coder');
    expect(scoped.get('shared')?.description).toBe('The local shared tool.');
    expect(registry.get('shared')?.description).toBe('The shared tool.');
    const outcome = await scoped.dispatch({ callId: '1', name: 'shared', arguments: {} }, { grantedTools: ['shared'] });
    expect(outcome.ok && outcome.value).toBe('local');
    expect(names(scoped)).toEqual(['fetch', 'read', 'shared', 'write']);
  });

  it('allow and deny masks intersect', () => {
    const scoped = registry.scope('a', { restrict: [{ allow: ['read', 'write', 'fetch'] }, { deny: ['write'] }] });
    expect(names(scoped)).toEqual(['fetch', 'read']);
    expect(scoped.get('write')).toBeUndefined();
    expect(scoped.get('shared')).toBeUndefined();
    expect(scoped.isAdmitted('read')).toBe(true);
    expect(scoped.isAdmitted('write')).toBe(false);
    expect(scoped.isAdmitted('shared')).toBe(false);
    expect(scoped.schemas().map((schema) => schema.name)).toEqual(['fetch', 'read']);
    expect(scoped.project('anthropic').map((entry) => entry.name)).toEqual(['fetch', 'read']);
  });

  it('a restricted-away global is unknown to a call from that scope', async () => {
    const scoped = registry.scope('a', { restrict: { deny: ['write'] } });
    const outcome = await scoped.dispatch({ callId: '1', name: 'write', arguments: {} }, { grantedTools: ['write', 'read'] });
    expect(!outcome.ok && outcome.error.code).toBe('UNKNOWN_TOOL');
    expect(!outcome.ok && (outcome.error as UnknownToolError).availableTools).toEqual(['read']);
  });

  it('a deny mask admits globals added later; an allow mask excludes them', () => {
    const denying = registry.scope('d', { restrict: { deny: ['write'] } });
    const allowing = registry.scope('a', { restrict: { allow: ['read'] } });
    expect(names(denying.with([tool('later')]))).toContain('later');
    expect(names(allowing.with([tool('later')]))).toEqual(['read']);
    expect(allowing.with([tool('later')]).isAdmitted('later')).toBe(false);
    expect(denying.with([tool('later')]).isAdmitted('later')).toBe(true);
  });

  it.each([
    ['an unknown name', { restrict: { allow: ['nope'] } }, /unknown tool "nope"/],
    ['a local name', { tools: [tool('mine')], restrict: { deny: ['mine'] } }, /local to this scope/],
    ['the reserved run_code', { restrict: { deny: ['run_code'] } }, /reserved "run_code"/],
    ['an empty allow', { restrict: { allow: [] } }, /non-empty/],
    ['an empty deny', { restrict: { deny: [] } }, /non-empty/],
    ['both allow and deny', { restrict: { allow: ['read'], deny: ['write'] } }, /either/],
    ['neither', { restrict: {} }, /either/],
    ['a non-string name', { restrict: { allow: [42] } }, /strings/],
    ['a versioned key', { restrict: { allow: ['read@1.0.0'] } }, /unknown tool/],
  ])('rejects a mask naming %s', (_label, options, message) => {
    expect(() => registry.scope('a', options as never)).toThrow(ConfigurationError);
    expect(() => registry.scope('a', options as never)).toThrow(message);
  });

  it('reserve() makes a name known and restrictable without a definition', () => {
    expect(() => registry.scope('a', { restrict: { allow: ['later_tool'] } })).toThrow(/unknown tool/);
    const reserved = registry.reserve('later_tool');
    const scoped = reserved.scope('a', { restrict: { allow: ['read', 'later_tool'] } });
    expect(names(scoped)).toEqual(['read']);
    expect(scoped.isAdmitted('later_tool')).toBe(true);
    expect(scoped.get('later_tool')).toBeUndefined();
    // The definition arrives later: the mask already admits it.
    expect(names(scoped.with([tool('later_tool')]))).toEqual(['later_tool', 'read']);
    expect(registry.scope('a', { restrict: { deny: ['deferred'] } }).isAdmitted('deferred')).toBe(false);
    expect(() => registry.reserve('Bad Name')).toThrow(ConfigurationError);
  });

  it('snapshots the mask: changing the caller array afterwards changes nothing', () => {
    const allow = ['read'];
    const scoped = registry.scope('a', { restrict: { allow } });
    allow.push('write');
    expect(names(scoped)).toEqual(['read']);
    expect(names(scoped.with([tool('later')]))).toEqual(['read']);
  });

  it('scopes are made from the global view, for a named agent', () => {
    expect(() => registry.scope('a').scope('b')).toThrow(ConfigurationError);
    expect(() => registry.scope('')).toThrow(ConfigurationError);
    expect(() => registry.scope('a', { presentAs: 'xml' as 'code' })).toThrow(ConfigurationError);
  });

  it('the global view admits every registered name', () => {
    expect(registry.isAdmitted('read')).toBe(true);
  });
});

describe('scope wire names across layers', () => {
  const expectClash = (build: () => unknown) => {
    let caught: unknown;
    try {
      build();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DuplicateToolError);
    expect((caught as DuplicateToolError).code).toBe('DUPLICATE_TOOL');
  };

  it('refuses a local version whose wire name is a global bare name, and the reverse', () => {
    const registry = createToolRegistry({ tools: [tool('fetch__v1_0_0'), tool('other')] });
    expectClash(() => registry.scope('agent', { tools: [tool('fetch', { version: '1.0.0' })] }));
    const versioned = createToolRegistry({ tools: [tool('fetch', { version: '1.0.0' })] });
    expectClash(() => versioned.scope('agent', { tools: [tool('fetch__v1_0_0')] }));
    // Re-deriving a scope on a new snapshot applies the same check.
    const scoped = createToolRegistry({ tools: [tool('other')] }).scope('agent', { tools: [tool('fetch', { version: '1.0.0' })] });
    expectClash(() => scoped.with([tool('fetch__v1_0_0')]));
  });

  it('still lets a local tool shadow a global one of the same name', async () => {
    const registry = createToolRegistry({ tools: [tool('fetch', { version: '1.0.0', dispatch: () => 'global' })] });
    const scoped = registry.scope('agent', { tools: [tool('fetch', { version: '1.0.0', dispatch: () => 'local' }), tool('fetch__v2_0_0')] });
    const outcome = await scoped.dispatch({ callId: 'c', name: 'fetch__v1_0_0', arguments: '{}' }, { grantedTools: ['fetch'] });
    expect(outcome.ok && outcome.value).toBe('local');
  });
});

describe('executionMode', () => {
  const classify = (isConcurrencySafe: (args: { n: number }) => unknown) =>
    // A classifier that answers something other than a boolean, as plain JavaScript could.
    createToolRegistry({ tools: [tool('t', { input: z.object({ n: z.number() }), isConcurrencySafe: isConcurrencySafe as (args: { n: number }) => boolean })] });

  it('is parallel only when isConcurrencySafe returns exactly true', () => {
    expect(classify(() => true).executionMode({ name: 't', arguments: { n: 1 } })).toBe('parallel');
    expect(classify(() => true).executionMode({ name: 't', arguments: '{"n":1}' })).toBe('parallel');
    expect(classify((args: { n: number }) => args.n > 0).executionMode({ name: 't', arguments: { n: 1 } })).toBe('parallel');
    expect(classify((args: { n: number }) => args.n > 0).executionMode({ name: 't', arguments: { n: -1 } })).toBe('exclusive');
  });

  it.each([
    ['a truthy non-true value', () => 'true'],
    ['1', () => 1],
    ['an object', () => ({})],
    ['undefined', () => undefined],
    ['a throw', () => {
      throw new Error('boom');
    }],
  ])('is exclusive for %s', (_label, fn) => {
    expect(classify(fn).executionMode({ name: 't', arguments: { n: 1 } })).toBe('exclusive');
  });

  it('is exclusive without a classifier, for an unknown or hidden tool, and for invalid arguments', () => {
    const registry = createToolRegistry({ tools: [tool('plain'), tool('safe', { isConcurrencySafe: () => true })] });
    expect(registry.executionMode({ name: 'plain', arguments: {} })).toBe('exclusive');
    expect(registry.executionMode({ name: 'nope', arguments: {} })).toBe('exclusive');
    expect(registry.executionMode({ name: 'safe', arguments: { n: 'not a number' } })).toBe('exclusive');
    expect(registry.executionMode({ name: 'safe', arguments: '{not json' })).toBe('exclusive');
    expect(registry.scope('a', { restrict: { deny: ['safe'] } }).executionMode({ name: 'safe', arguments: {} })).toBe('exclusive');
    expect(registry.executionMode({ name: 'safe', arguments: {} })).toBe('parallel');
  });

  it('is exclusive when the model supplies a configOnly key (dispatch replaces it with the configured value)', () => {
    const registry = createToolRegistry({
      tools: [
        tool('sync_repo', {
          input: z.object({ repo: z.string(), dryRun: z.boolean().optional() }),
          configOnly: ['dryRun'],
          isConcurrencySafe: (args: { repo: string; dryRun?: boolean }) => args.dryRun !== false,
        }),
      ],
    });
    expect(registry.executionMode({ name: 'sync_repo', arguments: '{"repo":"r","dryRun":true}' })).toBe('exclusive');
    expect(registry.executionMode({ name: 'sync_repo', arguments: { repo: 'r', dryRun: true } })).toBe('exclusive');
    expect(registry.executionMode({ name: 'sync_repo', arguments: { repo: 'r' } })).toBe('parallel');
  });
});

describe('projection through the registry', () => {
  const registry = createToolRegistry({
    tools: [
      tool('read_file', { policy: { fsScoped: true }, facts: { readOnly: true } }),
      tool('write_file', { policy: { fsScoped: true, fsWrite: true } }),
      tool('run_command', { policy: { spawnsProcess: true } }),
      tool('fetch_url', { policy: { egress: 'http' } }),
      tool('notify', { policy: { os: true } }),
    ],
  });

  it('is cached per snapshot view and per tool version across snapshots', () => {
    const first = registry.project('openai-chat');
    expect(registry.project('openai-chat')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first[0]!.function.parameters)).toBe(true);
    const next = registry.with([tool('zeta')]).project('openai-chat');
    expect(next).not.toBe(first);
    for (const entry of first) expect(next).toContain(entry);
  });

  it('the read-only tier offers no tool whose policy class writes', () => {
    expect(registry.project('mcp', { tier: 'read-only' }).map((entry) => entry.name)).toEqual(['read_file']);
    expect(registry.project('mcp', { tier: 'full' })).toHaveLength(5);
    expect(() => registry.project('mcp', { tier: 'readonly' as 'full' })).toThrow(ConfigurationError);
  });

  it('orders listed names first, the rest by name', () => {
    expect(registry.project('gemini', { order: ['write_file', 'notify'] }).map((entry) => entry.name)).toEqual(['write_file', 'notify', 'fetch_url', 'read_file', 'run_command']);
    expect(registry.project('gemini', { order: ['write_file,notify'] }).map((entry) => entry.name)).toEqual(['fetch_url', 'notify', 'read_file', 'run_command', 'write_file']);
  });

  it('refuses an unknown provider', () => {
    expect(() => registry.project('cohere' as 'mcp')).toThrow(ConfigurationError);
    expect(() => registry.project('__proto__' as 'mcp')).toThrow(ConfigurationError);
    expect(() => registry.project('cohere' as 'mcp')).toThrow('(openai-chat, openai-responses, anthropic, gemini, mcp)');
  });

  it('lists facts, effect and risk derived from the policy class', () => {
    const info = Object.fromEntries(registry.list().map((entry) => [entry.name, entry]));
    expect(info.read_file).toMatchObject({ effect: 'read', risk: 'low', governed: false, writes: false, facts: { readOnly: true } });
    expect(info.write_file).toMatchObject({ effect: 'write', governed: true, writes: true });
    expect(info.run_command).toMatchObject({ effect: 'execute', risk: 'high' });
    expect(info.fetch_url).toMatchObject({ effect: 'external', governed: true });
  });
});

describe('defineTool', () => {
  it('returns its argument, typed from the schema', () => {
    const definition = { name: 'typed', description: 'Typed.', input: z.object({ n: z.number() }), dispatch: (args: { n: number }) => args.n * 2 };
    expect(defineTool(definition)).toBe(definition);
  });
});
