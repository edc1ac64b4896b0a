import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { defineTool } from '../tools/define-tool.js';
import { createFakeHost } from '../../testing/create-fake-host.js';

/** The canonical input limit holds on every way arguments arrive, and an oversized call never reaches the body. */
describe('canonical input size limit', () => {
  const setup = () => {
    let bodies = 0;
    const echo = defineTool({
      name: 'echo',
      description: 'Echo',
      input: z.object({ text: z.string(), note: z.string().optional() }),
      configOnly: ['note'],
      dispatch: ({ text }) => {
        bodies += 1;
        return text.length;
      },
    });
    const registry = createToolRegistry({ tools: [echo], host: createFakeHost(), limits: { maxInputBytes: 1024 } });
    return { registry, bodies: () => bodies };
  };
  const huge = 'x'.repeat(4096);

  it('refuses oversized JSON text from a model', async () => {
    const { registry, bodies } = setup();
    const outcome = await registry.dispatch({ callId: '1', name: 'echo', arguments: JSON.stringify({ text: huge }) }, { grantedTools: ['echo'] });
    expect(!outcome.ok && outcome.error.code).toBe('ARGS_INVALID');
    expect(bodies()).toBe(0);
  });

  it('refuses an oversized in-process object bound for a Standard Schema validator', async () => {
    const { registry, bodies } = setup();
    const outcome = await registry.dispatch({ callId: '2', name: 'echo', arguments: { text: huge } }, { grantedTools: ['echo'] });
    expect(!outcome.ok && outcome.error.code).toBe('ARGS_INVALID');
    expect(!outcome.ok && outcome.error.message).not.toContain(huge.slice(0, 32));
    expect(bodies()).toBe(0);
  });

  it('refuses oversized configured values when the call needs digests (a plan, an approval, a journal)', async () => {
    const { registry, bodies } = setup();
    const plan = await registry.prepare({ callId: '3', name: 'echo', arguments: { text: 'small' } }, { grantedTools: ['echo'], config: { values: { note: huge } } });
    expect(plan.status).toBe('denied');
    expect(plan.error?.code).toBe('ARGS_INVALID');
    expect(plan.actionDigest).toBeUndefined();
    expect(bodies()).toBe(0);
  });

  it('accepts arguments within the limit', async () => {
    const { registry } = setup();
    const outcome = await registry.dispatch({ callId: '5', name: 'echo', arguments: { text: 'fine' } }, { grantedTools: ['echo'] });
    expect(outcome.ok).toBe(true);
  });
});
