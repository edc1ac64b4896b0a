import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import type { ToolDefinition } from '../tools/tool-types.js';
import { unwrapUntrusted } from '../untrusted/untrusted.js';
import { memoryJournal } from './__fixtures__/pipeline-fixtures.js';
import { renderedValueJson } from './settle-call.js';

/** A long value: its JSON text is past the length a call keeps. */
const longValue = (): { rows: string[] } => ({ rows: Array.from({ length: 400 }, (_, index) => `row ${index} `.padEnd(40, '.')) });

async function settle(tool: Partial<ToolDefinition> & Pick<ToolDefinition, 'dispatch'>, options: Parameters<typeof createToolRegistry>[0] = { tools: [] }) {
  const journal = memoryJournal();
  const definition = { name: 'rows', description: 'Rows.', input: { type: 'object' }, journal: 'record', ...tool } as ToolDefinition;
  const registry = createToolRegistry({ ...options, tools: [definition], journal });
  const outcome = await registry.dispatch({ callId: 'c', name: 'rows', arguments: {} }, { grantedTools: ['rows'] });
  return { outcome, input: journal.settled[0]?.input };
}

describe('the value text a call keeps (finalContentOf)', () => {
  it('hands the journal and the server the text the content is, for a long value rendered by default', async () => {
    const value = longValue();
    const { outcome, input } = await settle({ dispatch: () => value });
    expect(input?.valueJson).toBe(JSON.stringify(value));
    expect(unwrapUntrusted(outcome.content)).toBe(input?.valueJson);
    expect(renderedValueJson(outcome)).toBe(input?.valueJson);
  });

  it('keeps none for a short value, a string, a failure, or a value with no JSON form', async () => {
    for (const dispatch of [() => ({ ok: 1 }), () => 'x'.repeat(20_000), () => Promise.reject(new Error('no')), () => ({ ...longValue(), total: 1n })]) {
      const { outcome, input } = await settle({ dispatch });
      expect(input?.valueJson).toBeUndefined();
      expect(renderedValueJson(outcome)).toBeUndefined();
    }
  });

  it('keeps none where the content is not the value’s own rendering, or a hook still sees the value after it', async () => {
    const cases: { tool: Partial<ToolDefinition>; options?: Parameters<typeof createToolRegistry>[0] }[] = [
      { tool: { renderContent: () => 'a summary' } },
      { tool: { finalizeContent: ({ content }) => content } },
      { tool: {}, options: { tools: [], hooks: { postExecute: [() => ({ kind: 'accept', content: 'replaced' })] } } },
    ];
    for (const { tool, options } of cases) {
      const { outcome, input } = await settle({ ...tool, dispatch: () => longValue() }, options);
      expect(input?.valueJson).toBeUndefined();
      expect(renderedValueJson(outcome)).toBeUndefined();
    }
  });

  it('keeps the text of the value as a postExecute hook left it, rendered after the hook', async () => {
    const { outcome, input } = await settle(
      { dispatch: () => ({ ...longValue(), token: 'secret-token-value' }) },
      {
        tools: [],
        hooks: {
          postExecute: [
            ({ value }) => {
              (value as { token: string }).token = '[redacted]';
              return undefined;
            },
          ],
        },
      },
    );
    expect(input?.valueJson).toContain('"token":"[redacted]"');
    expect(renderedValueJson(outcome)).not.toContain('secret-token-value');
  });
});
