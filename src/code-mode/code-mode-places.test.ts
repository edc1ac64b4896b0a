import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry, defineTool, type RunCodeResult } from '../core/internal.js';
import { createQuickJsRuntime } from './index.js';

/** Let every pending reaction and timer of this turn run. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

/** An upstream tool (its target names an MCP server) whose calls never answer until the test lets them go, or they are cancelled. */
function hangingUpstream() {
  const release: (() => void)[] = [];
  let started = 0;
  const tool = defineTool({
    name: 'slow',
    description: 'Answers only when released.',
    input: z.object({}),
    dispatch: async (_args, _host, context) => {
      started += 1;
      await new Promise<void>((resolve, reject) => {
        release.push(resolve);
        context.signal?.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
      });
      return 'answered';
    },
  });
  const onServer = { ...tool, policyTarget: () => ({ server: 'hangs', mcpTool: 'slow', mcpArguments: {} }) };
  return { tool: onServer, started: () => started, releaseAll: () => release.splice(0).forEach((resolve) => resolve()) };
}

describe('Code Mode and the registry places: scripts cannot take every place', () => {
  it('four scripts waiting on an upstream that never answers leave a place for a plain call, as four direct calls do', async () => {
    const upstream = hangingUpstream();
    const local = defineTool({ name: 'local', description: 'Answers at once.', input: z.object({}), dispatch: () => 'local' });
    const registry = createToolRegistry({
      tools: [upstream.tool, local],
      presentAs: 'both',
      codeRuntime: createQuickJsRuntime({ timeoutMs: 60_000 }),
      limits: { maxConcurrentCalls: 4 },
    });
    const context = { grantedTools: ['run_code', 'slow', 'local'] };
    // Directly, the server's share keeps two of the four places for everyone else.
    const scripts = [0, 1, 2, 3].map((index) =>
      registry.dispatch({ callId: `s${index}`, name: 'run_code', arguments: { code: 'return await Promise.all([tools.slow({}), tools.slow({})]);' } }, context),
    );
    await settle();
    // Before, each script took a place and its calls ran in it, past the server's share: every place was held and this call waited.
    const read = registry.dispatch({ callId: 'l', name: 'local', arguments: {} }, context);
    const first = await Promise.race([read, settle().then(() => 'still waiting')]);
    expect(first).toMatchObject({ ok: true, value: 'local' });
    for (let round = 0; round < 4; round += 1) {
      upstream.releaseAll();
      await settle();
    }
    const outcomes = await Promise.all(scripts);
    expect(outcomes.map((outcome) => outcome.ok && (outcome.value as RunCodeResult).value)).toEqual(Array.from({ length: 4 }, () => ['answered', 'answered']));
  });
});
