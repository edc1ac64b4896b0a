import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry, defineTool, type PolicyDecision, type RunCodeResult, type ToolPolicy } from '../core/internal.js';
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

/** A policy that asks a person for every call of `name`, and allows the rest. */
function askFor(name: string): ToolPolicy {
  const allow: PolicyDecision = { kind: 'allow', matched: [] };
  return {
    version: 1,
    decideIdentity: () => allow,
    decideArguments: ({ tool }) => (tool.name === name ? { kind: 'ask', reason: 'deploys', matched: [] } : allow),
  };
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
    // Each script's two calls may start in turns of their own: released until every script has answered, however slow
    // the machine (a fixed four rounds left a call that started after the last one waiting for good under load).
    let answered = false;
    const all = Promise.all(scripts).finally(() => (answered = true));
    while (!answered) {
      upstream.releaseAll();
      await settle();
    }
    const outcomes = await all;
    expect(outcomes.map((outcome) => outcome.ok && (outcome.value as RunCodeResult).value)).toEqual(Array.from({ length: 4 }, () => ['answered', 'answered']));
  });

  it('scripts whose calls wait for a person leave a place for a plain call, as calls waiting for a person hold none', async () => {
    const governed = defineTool({ name: 'deploy', description: 'Governed.', input: z.object({}), dispatch: () => 'deployed' });
    const local = defineTool({ name: 'local', description: 'Answers at once.', input: z.object({}), dispatch: () => 'local' });
    const registry = createToolRegistry({ tools: [governed, local], presentAs: 'both', codeRuntime: createQuickJsRuntime({ timeoutMs: 60_000 }), limits: { maxConcurrentCalls: 2 }, policy: askFor('deploy') });
    const stop = new AbortController();
    // A person who never answers: the prompts stay open until the scripts are cancelled.
    const confirm = (_request: unknown, signal?: AbortSignal) => new Promise<never>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true }));
    const context = { grantedTools: ['run_code', 'deploy', 'local'], approval: { confirm }, signal: stop.signal };
    const scripts = [0, 1].map((index) => registry.dispatch({ callId: `a${index}`, name: 'run_code', arguments: { code: 'return await tools.deploy({});' } }, context));
    await settle();
    const read = registry.dispatch({ callId: 'l2', name: 'local', arguments: {} }, { grantedTools: ['local'] });
    expect(await Promise.race([read, settle().then(() => 'still waiting')])).toMatchObject({ ok: true, value: 'local' });
    stop.abort();
    // The first script held the scripts' one place (half of two) while its call waited; the second waited its turn for it.
    expect((await Promise.all(scripts)).map((outcome) => !outcome.ok && outcome.error.code)).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH']);
  });
});
