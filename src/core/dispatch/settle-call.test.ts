// A log line is what Node's inspector prints: the engine itself imports nothing of Node.
// eslint-disable-next-line no-restricted-imports
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { addTool, grantAll, harness } from './__fixtures__/pipeline-fixtures.js';

/** Stage 19's two outcome shapes, as a caller receives them. */
describe('settleCall: a success and a failure are separate values', () => {
  it('a success carries its value and no error; a failure its error and no value', async () => {
    const { registry } = harness([addTool]);
    const context = { grantedTools: grantAll(addTool) };
    const success = await registry.dispatch({ callId: 's', name: 'add', arguments: { a: 1, b: 2 } }, context);
    const failure = await registry.dispatch({ callId: 'f', name: 'add', arguments: { a: 'x', b: 2 } }, context);
    expect(success).toMatchObject({ ok: true, callId: 's', toolName: 'add', value: 3, contentReplaced: false });
    expect(success).not.toHaveProperty('error');
    expect(failure).toMatchObject({ ok: false, callId: 'f', toolName: 'add', error: { code: 'ARGS_INVALID' } });
    expect(failure).not.toHaveProperty('value');
    expect(failure).not.toHaveProperty('mapped');
    // Both build their receipt on first read, from the same call record; a refusal at stage 6
    // still shows the arguments as assembled.
    expect(success.receipt).toMatchObject({ callId: 's', code: 'OK', arguments: { a: 1, b: 2 } });
    expect(failure.receipt).toMatchObject({ callId: 'f', code: 'ARGS_INVALID', arguments: { a: 'x', b: 2 } });
  });

  it("keeps the call's state out of sight: its own keys, its JSON and a log line show only the outcome", async () => {
    const { registry } = harness([addTool]);
    const context = { grantedTools: grantAll(addTool), config: { values: { apiKey: 'sk-live-0123456789abcdef' } } };
    const success = await registry.dispatch({ callId: 's', name: 'add', arguments: { a: 1, b: 2 } }, context);
    const failure = await registry.dispatch({ callId: 'f', name: 'add', arguments: { a: 'x', b: 2 } }, context);
    expect(Reflect.ownKeys(success)).toEqual(['callId', 'toolName', 'content', 'contexts', 'ok', 'value', 'mapped', 'attachments', 'contentReplaced']);
    expect(Reflect.ownKeys(failure)).toEqual(['callId', 'toolName', 'content', 'contexts', 'ok', 'error']);
    for (const outcome of [success, failure]) {
      expect(JSON.stringify(outcome)).not.toContain('sk-live');
      expect(inspect(outcome, { depth: 8, showHidden: true })).not.toContain('sk-live');
    }
  });
});
