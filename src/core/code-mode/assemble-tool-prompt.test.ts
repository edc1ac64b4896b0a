import { describe, expect, it } from 'vitest';
import { ConfigurationError, ToolDefinitionError } from '../errors/tool-errors.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import type { ToolInfo } from '../registry/registry-types.js';
import { defineTool } from '../tools/define-tool.js';
import { assembleToolPrompt } from './assemble-tool-prompt.js';
import type { CodeRuntime } from './code-mode-types.js';
import { renderToolSdk } from './render-tool-sdk.js';

// These tests never run a script: the runtime only supplies a language and a time bound.
function runtimeFor(language: string): CodeRuntime {
  return { language, maxTimeoutMs: 1_000, run: () => Promise.reject(new Error('not run in these tests')) };
}
const javascript = runtimeFor('javascript');

const add = defineTool({ name: 'add', description: 'Add.', input: { type: 'object', properties: { a: { type: 'number' } } }, dispatch: () => 1 });
const write = defineTool({ name: 'write_note', description: 'Write.', input: { type: 'object' }, policy: { fsWrite: true }, dispatch: () => 1 });
const names = (tools: readonly { readonly name: string }[]): string[] => tools.map((tool) => tool.name);

describe('presentation modes', () => {
  const registry = createToolRegistry({ tools: [add, write], codeRuntime: javascript });

  it('projects the visible tools (native), only run_code (code) or both; the catalog never changes', () => {
    expect(names(registry.project('anthropic'))).toEqual(['add', 'write_note']);
    const code = registry.scope('coder', { presentAs: 'code' });
    const both = registry.scope('hybrid', { presentAs: 'both' });
    expect(names(code.project('anthropic'))).toEqual(['run_code']);
    expect(names(both.project('anthropic'))).toEqual(['add', 'run_code', 'write_note']);
    for (const view of [registry, code, both]) expect(view.list().map((info) => info.name)).toEqual(['add', 'write_note']);
    expect([registry.presentAs, code.presentAs, both.presentAs]).toEqual(['native', 'code', 'both']);
  });

  it('a scope declares its presentation once: a second declaration throws', () => {
    const scoped = registry.scope('coder', { presentAs: 'code' });
    expect(() => scoped.scope('coder', { presentAs: 'both' })).toThrow(/scope\.presentAs.*already declared/);
    // Derived snapshots keep the one declaration.
    expect(scoped.with([]).presentAs).toBe('code');
  });

  it('a code mode needs a runtime, and modes are checked', () => {
    expect(() => createToolRegistry({ tools: [add], presentAs: 'code' })).toThrow(ConfigurationError);
    expect(() => createToolRegistry({ tools: [add], presentAs: 'both' })).toThrow(/codeRuntime/);
    expect(() => createToolRegistry({ tools: [add] }).scope('a', { presentAs: 'code' })).toThrow(/codeRuntime/);
    expect(() => createToolRegistry({ tools: [add], presentAs: 'json' as never, codeRuntime: javascript })).toThrow(/native, code or both/);
    expect(() => createToolRegistry({ tools: [add], codeRuntime: { language: 'javascript' } as never })).toThrow(/codeRuntime/);
  });

  it('run_code cannot be registered, shadowed, restricted or removed', () => {
    for (const source of ['builtin', 'plugin', 'mcp'] as const) {
      const impostor = defineTool({ name: 'run_code', source, description: 'Impostor.', input: { type: 'object' }, dispatch: () => 'pwned' });
      expect(() => createToolRegistry({ tools: [impostor], codeRuntime: javascript })).toThrow(ToolDefinitionError);
      expect(() => registry.scope('a', { tools: [impostor] })).toThrow(ToolDefinitionError);
      expect(() => registry.with([impostor])).toThrow(ToolDefinitionError);
    }
    expect(() => registry.scope('a', { restrict: { deny: ['run_code'] } })).toThrow(/reserved/);
    expect(() => registry.scope('a', { restrict: { allow: ['run_code'] } })).toThrow(/reserved/);
    expect(() => registry.with([], { remove: ['run_code'] })).toThrow(/cannot remove/);
    // A new snapshot keeps the transport.
    expect(names(registry.with([], { remove: ['add'] }).scope('a', { presentAs: 'code' }).project('anthropic'))).toEqual(['run_code']);
  });
});

describe('assembleToolPrompt', () => {
  const registry = createToolRegistry({ tools: [add, write], codeRuntime: javascript });

  it('native contributes function definitions only', () => {
    const assembly = assembleToolPrompt({ registry, provider: 'openai-chat', toolOrder: ['write_note'] });
    expect(assembly.mode).toBe('native');
    expect(assembly.sections).toEqual([]);
    expect(assembly.tools.map((tool) => tool.function.name)).toEqual(['write_note', 'add']);
  });

  it('code contributes run_code, the SDK and the code-only rule', () => {
    const assembly = assembleToolPrompt({ registry: registry.scope('coder', { presentAs: 'code' }), provider: 'anthropic' });
    expect(names(assembly.tools)).toEqual(['run_code']);
    expect(assembly.sections.map((section) => section.id)).toEqual(['tools:sdk', 'tools:code-only']);
    expect(assembly.sections[0]?.text).toContain('add(args?: AddInput): Promise<AddOutput>;');
  });

  it('both contributes both forms and no rule, ordered by toolOrder', () => {
    const assembly = assembleToolPrompt({ registry: registry.scope('hybrid', { presentAs: 'both' }), provider: 'anthropic', toolOrder: ['run_code', 'write_note'] });
    expect(names(assembly.tools)).toEqual(['run_code', 'write_note', 'add']);
    expect(assembly.sections.map((section) => section.id)).toEqual(['tools:sdk']);
  });

  it('rejects a toolOrder entry the mode does not contribute', () => {
    expect(() => assembleToolPrompt({ registry: registry.scope('coder', { presentAs: 'code' }), provider: 'anthropic', toolOrder: ['add'] })).toThrow(/toolOrder\[0\].*code presentation does not contribute/);
    expect(() => assembleToolPrompt({ registry, provider: 'anthropic', toolOrder: ['add', 'run_code'] })).toThrow(/toolOrder\[1\]/);
    expect(() => assembleToolPrompt({ registry, provider: 'anthropic', toolOrder: ['missing'] })).toThrow(ConfigurationError);
    // The read-only tier does not contribute writing tools, so naming one is rejected too.
    expect(() => assembleToolPrompt({ registry, provider: 'anthropic', tier: 'read-only', toolOrder: ['write_note'] })).toThrow(/toolOrder\[0\]/);
  });

  it('fails loudly for a runtime language with no renderer, and renders Python for python runtimes', () => {
    const ruby = createToolRegistry({ tools: [add], presentAs: 'code', codeRuntime: runtimeFor('ruby') });
    expect(() => assembleToolPrompt({ registry: ruby, provider: 'anthropic' })).toThrow(/no SDK renderer/);
    const python = createToolRegistry({ tools: [add], presentAs: 'code', codeRuntime: runtimeFor('python') });
    const text = assembleToolPrompt({ registry: python, provider: 'anthropic' }).sections[0]?.text ?? '';
    expect(text).toContain('```python');
    expect(text).toContain('async def add(args: AddInput) -> Any:');
  });

  it('renders the SDK once per tool list (the registry view computes that list once per snapshot)', () => {
    let reads = 0;
    const counted = registry.list().map((info) => new Proxy(info, { get: (target, key) => ((reads += 1), Reflect.get(target, key)) })) as readonly ToolInfo[];
    const first = renderToolSdk({ tools: counted, language: 'javascript' });
    const afterFirst = reads;
    expect(renderToolSdk({ tools: counted, language: 'javascript' })).toBe(first);
    expect(reads).toBe(afterFirst);
    expect(afterFirst).toBeGreaterThan(0);
    expect(registry.list()).toBe(registry.list());
  });
});
