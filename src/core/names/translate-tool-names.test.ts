import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/tool-errors.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { defineTool } from '../tools/define-tool.js';
import { translateToolNames, type ToolNameDiagnostic } from './translate-tool-names.js';

const collect = () => {
  const diagnostics: ToolNameDiagnostic[] = [];
  return { diagnostics, onDiagnostic: (diagnostic: ToolNameDiagnostic) => diagnostics.push(diagnostic) };
};

describe('translateToolNames', () => {
  it('maps Claude Code names one-to-many, de-duplicated in first-seen order', () => {
    expect(translateToolNames(['Read', 'Grep', 'Glob', 'LS'], 'strict')).toEqual(['read_file', 'read_media', 'list_directory']);
    expect(translateToolNames(['Bash'], 'strict')).toEqual(['run_command', 'git_status', 'git_commit']);
    expect(translateToolNames(['Write', 'Edit', 'WebFetch', 'WebSearch'], 'lenient')).toEqual(['write_file', 'edit_file', 'http_request', 'web_search']);
  });

  it('passes our own names and translates mcp__server__tool', () => {
    expect(translateToolNames(['notify', 'mcp__github__create_issue', 'mcp__my-server__Search.Docs'], 'strict')).toEqual(['notify', 'mcp_github_create_issue', 'mcp_my_server_search_docs']);
  });

  it('strips arg-specs to the bare name and reports the widening', () => {
    const { diagnostics, onDiagnostic } = collect();
    expect(translateToolNames(['Bash(git status)', 'Read(./src/**)', 'WebFetch(domain:example.com)'], 'strict', onDiagnostic)).toEqual([
      'run_command', 'git_status', 'git_commit', 'read_file', 'read_media', 'http_request',
    ]);
    expect(diagnostics.map((diagnostic) => diagnostic.kind)).toEqual(['widened', 'widened', 'widened']);
  });

  it('strict passes unknown names through, so the mask rejects them loudly', () => {
    const names = translateToolNames(['Read', 'NotebookEdit', 'read', 'Bash(', 'mcp__github'], 'strict');
    expect(names).toEqual(['read_file', 'read_media', 'NotebookEdit', 'read', 'Bash(', 'mcp__github']);
    const registry = createToolRegistry({ tools: [defineTool({ name: 'read_file', description: 'r', input: { type: 'object' }, dispatch: () => null })] });
    expect(() => registry.scope('agent', { restrict: { allow: translateToolNames(['NotebookEdit'], 'strict') } })).toThrow(/unknown tool "NotebookEdit"/);
  });

  it('lenient drops unknown names with a diagnostic and yields undefined when nothing survives', () => {
    const { diagnostics, onDiagnostic } = collect();
    expect(translateToolNames(['Read', 'NotebookEdit', 'READ', 'mcp__github__*'], 'lenient', onDiagnostic)).toEqual(['read_file', 'read_media']);
    expect(diagnostics.map((diagnostic) => [diagnostic.kind, diagnostic.entry])).toEqual([['dropped', 'NotebookEdit'], ['dropped', 'READ'], ['dropped', 'mcp__github__*']]);
    expect(translateToolNames(['Nope', 'Task'], 'lenient')).toBeUndefined();
    expect(translateToolNames([], 'lenient')).toBeUndefined();
    expect(translateToolNames([], 'strict')).toEqual([]);
  });

  it('lenient checks our names against `known` when given', () => {
    const known = new Set(['read_file', 'notify']);
    const { diagnostics, onDiagnostic } = collect();
    expect(translateToolNames(['Read', 'not_registered', 'notify'], 'lenient', onDiagnostic, { known: (name) => known.has(name) })).toEqual(['read_file', 'notify']);
    expect(diagnostics).toHaveLength(1);
    expect(translateToolNames(['Bash'], 'lenient', undefined, { known: (name) => known.has(name) })).toBeUndefined();
  });

  it('with `known`, a Claude Code name expands only to the targets that exist, in both modes', () => {
    const registry = createToolRegistry({ tools: ['read_file', 'list_directory', 'run_command'].map((name) => defineTool({ name, description: name, input: { type: 'object' }, dispatch: () => null })) });
    const known = (name: string) => registry.get(name) !== undefined;
    expect(translateToolNames(['Read', 'Grep', 'Bash'], 'strict', undefined, { known })).toEqual(['read_file', 'list_directory', 'run_command']);
    expect(registry.scope('a', { restrict: { allow: translateToolNames(['Read'], 'strict', undefined, { known }) } }).list().map((info) => info.name)).toEqual(['read_file']);
    // Nothing behind it: strict passes the Claude Code name through (the mask rejects it), lenient drops it.
    expect(translateToolNames(['WebFetch', 'nope_tool'], 'strict', undefined, { known })).toEqual(['WebFetch', 'nope_tool']);
    expect(translateToolNames(['WebFetch', 'nope_tool'], 'lenient', undefined, { known })).toBeUndefined();
  });

  it('is hostile-input safe: non-strings, huge entries, prototype names', () => {
    const { diagnostics, onDiagnostic } = collect();
    const hostile = [42, null, 'x'.repeat(10_000), '__proto__', 'constructor', 'toString', 'hasOwnProperty'] as unknown as string[];
    // `constructor` is a well-formed name of ours (the registry looks names up in a Map); the rest are dropped.
    expect(translateToolNames(hostile, 'lenient', onDiagnostic)).toEqual(['constructor']);
    expect(diagnostics).toHaveLength(hostile.length - 1);
    for (const diagnostic of diagnostics) expect(diagnostic.entry.length).toBeLessThanOrEqual(128);
    expect(() => translateToolNames(['Read'], 'loose' as 'strict')).toThrow(ConfigurationError);
    expect(() => translateToolNames('Read' as unknown as string[], 'lenient')).toThrow(ConfigurationError);
    expect(() => translateToolNames('Read' as unknown as string[], 'lenient')).toThrow('"translateToolNames names" must be an array');
  });
});
