import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolArgsInvalidError } from '../errors/tool-errors.js';
import { compileTool } from '../tools/compile-tool.js';
import { defineTool } from '../tools/define-tool.js';
import type { AnyToolDefinition } from '../tools/tool-types.js';
import { admitCall } from './admit-call.js';
import { assembleArguments } from './assemble-arguments.js';
import type { DispatchContext } from './dispatch-types.js';

const jsonSchemaTool = defineTool({
  name: 'send',
  description: 'Send.',
  input: { type: 'object', properties: { to: { type: 'string' }, token: { type: 'string' } }, required: ['to'] },
  configOnly: ['token'],
  dispatch: () => 'sent',
});
const zodTool = defineTool({ name: 'tag', description: 'Tag.', input: z.object({ path: z.string(), token: z.string().optional() }), configOnly: ['token'], dispatch: () => 'tagged' });

function assemble(definition: AnyToolDefinition, rawArguments: unknown, context: DispatchContext = {}): ReturnType<typeof assembleArguments> {
  return assembleArguments({ tool: compileTool(definition), call: admitCall({ callId: 'c', name: definition.name, arguments: rawArguments }), context });
}

/** Stage 5's value: which kind of arguments stage 6 receives decides what it still checks. */
describe('assembleArguments', () => {
  it('plain model arguments are left unmeasured for the direct validator; a caller object bound for a rebuilding validator is foreign', () => {
    const args = { path: 'a.txt' };
    const fromObject = assemble(zodTool, args);
    expect(fromObject).toEqual({ kind: 'unmeasured', value: args, foreign: true });
    expect(assemble(zodTool, '{"path":"a.txt"}')).toEqual({ kind: 'unmeasured', value: { path: 'a.txt' }, foreign: false });
    // A JSON Schema validator hands its input back, and stage 6 copies a caller's object: not foreign here.
    expect(assemble(jsonSchemaTool, { to: 'x' })).toEqual({ kind: 'unmeasured', value: { to: 'x' }, foreign: false });
  });

  it('configured values for a JSON Schema validator are measured copies: config wins, and a model never supplies a config-only key', () => {
    const args = { to: 'ops', token: 'from-the-model' };
    const assembled = assemble(jsonSchemaTool, args, { config: { values: { token: 'configured' } } });
    expect(assembled).toMatchObject({ kind: 'measured', value: { to: 'ops', token: 'configured' } });
    if (assembled instanceof ToolArgsInvalidError || assembled.kind !== 'measured') return;
    expect(assembled.sizeBound).toBeGreaterThanOrEqual(JSON.stringify(assembled.value).length);
    expect(assembled.value).not.toBe(args);

    const stripped = assemble(jsonSchemaTool, args);
    expect(stripped).toMatchObject({ kind: 'measured', value: { to: 'ops' } });
    expect(stripped instanceof ToolArgsInvalidError ? undefined : stripped.value).not.toHaveProperty('token');
  });

  it('mapped values for a rebuilding validator stay unchecked: the caller’s, never walked here', () => {
    const state = { target: { path: 'mapped.txt' } };
    const assembled = assemble(zodTool, {}, { config: { inputMapping: { path: 'target.path' }, state } });
    expect(assembled).toMatchObject({ kind: 'unchecked', value: { path: 'mapped.txt' } });
  });

  it('arguments that are not a JSON object, or a configured value with no JSON form, are refused as ARGS_INVALID', () => {
    expect(assemble(zodTool, '{')).toBeInstanceOf(ToolArgsInvalidError);
    expect(assemble(zodTool, '[1]')).toBeInstanceOf(ToolArgsInvalidError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(assemble(jsonSchemaTool, { to: 'x' }, { config: { values: { token: cyclic } } })).toBeInstanceOf(ToolArgsInvalidError);
  });
});
