import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createToolRegistry, defineTool } from '../../core/internal.js';
import { dispatchGoverned } from './dispatch-governed.js';
import { frameworkTools } from './framework-tools.js';

const version = (v: string) =>
  defineTool({ name: 'echo', version: v, description: `Echo v${v}.`, input: z.object({ text: z.string() }), dispatch: (args: { text: string }) => `${v}:${args.text}` });

describe('frameworkTools', () => {
  it('offers each pinned version under a provider-safe name and dispatches it by its registry key', async () => {
    const registry = createToolRegistry({ tools: [version('1.0.0'), version('2.0.0')] });
    const tools = frameworkTools(registry);
    expect(tools.map((tool) => [tool.wireName, tool.key])).toEqual([
      ['echo__v1_0_0', 'echo@1.0.0'],
      ['echo__v2_0_0', 'echo@2.0.0'],
    ]);
    const second = tools[1]!;
    const outcome = await dispatchGoverned({ registry, context: { grantedTools: ['echo'] }, call: { callId: 'c', name: second.key, arguments: { text: 'hi' } } });
    expect(outcome.ok && outcome.value).toBe('2.0.0:hi');
  });

  it('shows the model the registry’s schema without configuration-only parameters', () => {
    const tool = defineTool({
      name: 'fetch_page',
      description: 'Fetch a page.',
      input: z.object({ url: z.string(), apiKey: z.string() }),
      configOnly: ['apiKey'],
      dispatch: () => 'ok',
    });
    const [entry] = frameworkTools(createToolRegistry({ tools: [tool] }));
    expect(Object.keys((entry?.inputSchema.properties ?? {}))).toEqual(['url']);
  });
});
