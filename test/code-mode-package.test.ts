// Runs against the built package (npm test builds first): the `toolgate/code-mode` export resolves and works end to end.
import { assembleToolPrompt, createToolRegistry, defineTool, type RunCodeResult } from 'toolgate';
import { createQuickJsRuntime } from 'toolgate/code-mode';
import { describe, expect, it } from 'vitest';

describe('toolgate/code-mode (dist)', () => {
  it('runs a governed script through the exported runtime and assembles its prompt', async () => {
    const greet = defineTool({
      name: 'greet',
      description: 'Greets someone.',
      input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      dispatch: (args: Record<string, unknown>) => `hello ${String(args.name)}`,
    });
    const registry = createToolRegistry({ tools: [greet], presentAs: 'code', codeRuntime: createQuickJsRuntime() });
    const outcome = await registry.dispatch({ callId: 'c1', name: 'run_code', arguments: { code: 'return await tools.greet({ name: "dist" });' } }, { grantedTools: ['run_code', 'greet'] });
    expect(outcome.ok ? (outcome.value as RunCodeResult).value : outcome.error.message).toBe('hello dist');
    const prompt = assembleToolPrompt({ registry, provider: 'mcp' });
    expect(prompt.tools.map((tool) => tool.name)).toEqual(['run_code']);
    expect(prompt.sections[0]?.text).toContain('greet(args: GreetInput): Promise<GreetOutput>;');
  });
});
