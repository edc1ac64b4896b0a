import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { createScriptedTools } from './create-scripted-tools.js';

describe('createScriptedTools', () => {
  it('answers in order, by argument match, repeats the last answer, and records every call', async () => {
    const scripted = createScriptedTools([
      {
        name: 'get_weather',
        answers: [{ when: { city: 'Oslo' }, result: { tempC: -3 } }, { result: { tempC: 21 } }, { error: 'service down' }],
      },
    ]);
    const registry = createToolRegistry({ tools: scripted.tools });
    const context = { grantedTools: ['get_weather'] };
    const call = (city: string, callId: string) => registry.dispatch({ callId, name: 'get_weather', arguments: { city } }, context);
    const madrid = await call('Madrid', 'c1');
    const oslo = await call('Oslo', 'c2');
    const failed = await call('Lima', 'c3');
    const again = await call('Lima', 'c4');
    expect([madrid, oslo].map((outcome) => outcome.ok && outcome.value)).toEqual([{ tempC: 21 }, { tempC: -3 }]);
    expect(failed.ok ? undefined : [failed.error.code, failed.error.message]).toEqual(['EXECUTION_FAILED', 'Tool "get_weather" failed: service down.']);
    expect(again.ok).toBe(false);
    expect(scripted.calls.map((entry) => entry.answer)).toEqual([1, 0, 2, 2]);
    scripted.reset();
    expect(scripted.calls).toEqual([]);
    expect((await call('Oslo', 'c5')).ok).toBe(true);
  });

  it('refuses a call no answer matches, and a script without answers', async () => {
    const scripted = createScriptedTools([{ name: 'lookup', answers: [{ when: { id: 1 }, result: 'one' }] }]);
    const registry = createToolRegistry({ tools: scripted.tools });
    const outcome = await registry.dispatch({ callId: 'c1', name: 'lookup', arguments: { id: 2 } }, { grantedTools: ['lookup'] });
    expect(outcome.ok ? undefined : outcome.error.code).toBe('EXECUTION_FAILED');
    expect(() => createScriptedTools([{ name: 'empty', answers: [] }])).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
  });
});
