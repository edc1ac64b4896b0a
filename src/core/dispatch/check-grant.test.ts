import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { defineTool } from '../tools/define-tool.js';
import type { DispatchContext } from './dispatch-types.js';

const make = (name: string) => defineTool({ name, description: name, input: { type: 'object' }, dispatch: () => `${name} ran` });
const registry = createToolRegistry({ tools: [make('read_file'), make('file'), make('read_file_summary')] });

describe('checkGrant: only an Array or a Set grants', () => {
  it('a string grantedTools grants nothing, not even its substrings or itself (fail closed)', async () => {
    const context = { grantedTools: 'read_file_summary' } as unknown as DispatchContext;
    for (const name of ['read_file_summary', 'read_file', 'file']) {
      const outcome = await registry.dispatch({ callId: name, name, arguments: '{}' }, context);
      expect(outcome.ok ? 'OK' : outcome.error.code).toBe('POLICY_DENIED');
      if (!outcome.ok) expect(outcome.error).toMatchObject({ reason: 'not_granted' });
    }
    const plan = await registry.prepare({ callId: 'p', name: 'file', arguments: '{}' }, context);
    expect(plan.status).not.toBe('ready');
  });

  it('other non-collection values grant nothing', async () => {
    for (const grantedTools of [{ includes: () => true, has: () => true }, 42, null, { 0: 'file', length: 1 }]) {
      const outcome = await registry.dispatch({ callId: 'c', name: 'file', arguments: '{}' }, { grantedTools } as unknown as DispatchContext);
      expect(outcome.ok ? 'OK' : outcome.error.code).toBe('POLICY_DENIED');
    }
  });

  it('an Array or a Set grants by exact name or key only', async () => {
    expect((await registry.dispatch({ callId: 'a', name: 'file', arguments: '{}' }, { grantedTools: ['file'] })).ok).toBe(true);
    expect((await registry.dispatch({ callId: 's', name: 'file', arguments: '{}' }, { grantedTools: new Set(['file']) })).ok).toBe(true);
    const partial = await registry.dispatch({ callId: 'p', name: 'file', arguments: '{}' }, { grantedTools: ['read_file_summary'] });
    expect(partial.ok).toBe(false);
  });
});
