import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolBusyError } from '../errors/tool-errors.js';
import type { ToolApprovalDecision } from '../policy/approval-types.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { defineTool } from '../tools/define-tool.js';
import { memoryJournal } from './__fixtures__/pipeline-fixtures.js';

/** A tool whose calls wait until the test lets each go; it counts how many run at once and in what order they started. */
function heldTool(name = 'held') {
  const started: number[] = [];
  const release = new Map<number, () => void>();
  let running = 0;
  let peak = 0;
  const tool = defineTool({
    name,
    description: 'Waits until released.',
    input: z.object({ index: z.number() }),
    dispatch: async ({ index }) => {
      started.push(index);
      running += 1;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => release.set(index, resolve));
      running -= 1;
      return index;
    },
  });
  return { tool, started, peak: () => peak, running: () => running, release: (index: number) => release.get(index)?.() };
}

/** Let every pending reaction and timer of this turn run. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

describe('takeCallPlace: at most limits.maxConcurrentCalls calls run at once', () => {
  it('runs two of five at once, the others in arrival order as places free, every call answered', async () => {
    const held = heldTool();
    const registry = createToolRegistry({ tools: [held.tool], limits: { maxConcurrentCalls: 2 } });
    const outcomes = [0, 1, 2, 3, 4].map((index) => registry.dispatch({ callId: `c${index}`, name: 'held', arguments: { index } }, { grantedTools: ['held'] }));
    await settle();
    expect(held.started).toEqual([0, 1]);
    held.release(1);
    await settle();
    expect(held.started).toEqual([0, 1, 2]);
    for (const index of [0, 2, 3, 4]) {
      held.release(index);
      await settle();
    }
    expect((await Promise.all(outcomes)).map((outcome) => outcome.ok && outcome.value)).toEqual([0, 1, 2, 3, 4]);
    expect(held.peak()).toBe(2);
    expect(registry.limits).toMatchObject({ maxConcurrentCalls: 2, maxQueuedCalls: 1024 });
  });

  it('refuses a call past maxQueuedCalls waiting at once, retryable, with no body run and nothing claimed', async () => {
    const held = heldTool();
    const journal = memoryJournal();
    const effect = defineTool({ name: 'effect', description: 'An effect.', input: z.object({}), journal: 'effect', dispatch: () => 'ran' });
    const registry = createToolRegistry({ tools: [held.tool, effect], journal, limits: { maxConcurrentCalls: 1, maxQueuedCalls: 1 } });
    const context = { grantedTools: ['held', 'effect'] };
    const first = registry.dispatch({ callId: 'a', name: 'held', arguments: { index: 0 } }, context);
    const waiting = registry.dispatch({ callId: 'b', name: 'held', arguments: { index: 1 } }, context);
    await settle();
    const refused = await registry.dispatch({ callId: 'c', name: 'effect', arguments: {} }, context);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error).toBeInstanceOf(ToolBusyError);
    expect(refused.error).toMatchObject({ code: 'TOOL_UNAVAILABLE', retryable: true, recoverable: true });
    expect(refused.error.message).toBe('Tool "effect" was not run: 1 call is running and 1 more is waiting their turn. Retry once some have finished.');
    // Refused before its claim: the journal was never asked to hold it.
    expect(journal.log).not.toContain('prepare:c');
    held.release(0);
    await settle();
    held.release(1);
    expect((await Promise.all([first, waiting])).map((outcome) => outcome.ok)).toEqual([true, true]);
    // Places free again: the same call now runs.
    expect(await registry.dispatch({ callId: 'd', name: 'effect', arguments: {} }, context)).toMatchObject({ ok: true, value: 'ran' });
  });

  it('takes a waiting call whose signal aborts out of the line: it never runs, and the count stays right', async () => {
    const held = heldTool();
    const registry = createToolRegistry({ tools: [held.tool], limits: { maxConcurrentCalls: 1 } });
    const context = { grantedTools: ['held'] };
    const first = registry.dispatch({ callId: 'a', name: 'held', arguments: { index: 0 } }, context);
    const stop = new AbortController();
    const cancelled = registry.dispatch({ callId: 'b', name: 'held', arguments: { index: 1 } }, { ...context, signal: stop.signal });
    const next = registry.dispatch({ callId: 'c', name: 'held', arguments: { index: 2 } }, context);
    await settle();
    stop.abort();
    expect(await cancelled).toMatchObject({ ok: false, error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    held.release(0);
    await settle();
    expect(held.started).toEqual([0, 2]);
    held.release(2);
    expect((await Promise.all([first, next])).map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(held.peak()).toBe(1);
  });

  it('holds no place while a call waits for its approval', async () => {
    let approve: (decision: ToolApprovalDecision) => void = () => undefined;
    let asked: () => void = () => undefined;
    const askedNow = new Promise<void>((resolve) => (asked = resolve));
    const governed = defineTool({ name: 'governed', description: 'Asks first.', input: z.object({}), policy: { os: true }, dispatch: () => 'approved' });
    const plain = defineTool({ name: 'plain', description: 'Runs.', input: z.object({}), dispatch: () => 'plain' });
    const registry = createToolRegistry({ tools: [governed, plain], limits: { maxConcurrentCalls: 1 } });
    const asking = registry.dispatch(
      { callId: 'a', name: 'governed', arguments: {} },
      {
        grantedTools: ['governed'],
        approval: {
          confirm: () =>
            new Promise<ToolApprovalDecision>((resolve) => {
              approve = resolve;
              asked();
            }),
        },
      },
    );
    // The person is being asked now: the call is past its policy, and waits.
    await askedNow;
    expect(await registry.dispatch({ callId: 'b', name: 'plain', arguments: {} }, { grantedTools: ['plain'] })).toMatchObject({ ok: true, value: 'plain' });
    approve({ outcome: 'approve' });
    expect(await asking).toMatchObject({ ok: true, value: 'approved' });
  });

  it('gives the place back when a body throws, when its result spills, and across the snapshots with() derives', async () => {
    const failing = defineTool({
      name: 'failing',
      description: 'Throws.',
      input: z.object({}),
      dispatch: (): string => {
        throw new Error('boom');
      },
    });
    const long = defineTool({ name: 'long', description: 'A long text.', input: z.object({}), dispatch: () => 'line\n'.repeat(10_000) });
    const held = heldTool();
    const registry = createToolRegistry({ tools: [failing, long], limits: { maxConcurrentCalls: 1, content: { maxLines: 10 } } });
    const context = { grantedTools: ['failing', 'long', 'held'] };
    expect(await registry.dispatch({ callId: 'a', name: 'failing', arguments: {} }, context)).toMatchObject({ ok: false, error: { code: 'EXECUTION_FAILED' } });
    expect(await registry.dispatch({ callId: 'b', name: 'long', arguments: {} }, context)).toMatchObject({ ok: true });
    const derived = registry.with([held.tool]);
    const holding = derived.dispatch({ callId: 'c', name: 'held', arguments: { index: 0 } }, context);
    const behind = registry.dispatch({ callId: 'd', name: 'long', arguments: {} }, context);
    await settle();
    // The call on the first registry waits for the place the derived one holds.
    expect(held.running()).toBe(1);
    held.release(0);
    expect((await Promise.all([holding, behind])).map((outcome) => outcome.ok)).toEqual([true, true]);
  });

  it('runs a nested call in its parent\'s place, so a parent waiting on its children never waits on itself', async () => {
    const child = defineTool({ name: 'child', description: 'Nested.', input: z.object({}), dispatch: () => 'child' });
    const parent = defineTool({
      name: 'parent',
      description: 'Dispatches a nested call.',
      input: z.object({}),
      dispatch: async (_args, _host, context) => {
        const outcome = await context.dispatchNested({ name: 'child', arguments: {} });
        return outcome.ok ? outcome.value : outcome.error.code;
      },
    });
    const registry = createToolRegistry({ tools: [parent, child], limits: { maxConcurrentCalls: 1 } });
    expect(await registry.dispatch({ callId: 'p', name: 'parent', arguments: {} }, { grantedTools: ['parent', 'child'] })).toMatchObject({ ok: true, value: 'child' });
  });

  it('claims nothing for a call while it waits its turn: a crash then leaves no claim open for a body that never ran', async () => {
    const held = heldTool();
    const journal = memoryJournal();
    const effect = defineTool({ name: 'effect', description: 'An effect.', input: z.object({}), journal: 'effect', dispatch: () => 'ran' });
    const registry = createToolRegistry({ tools: [held.tool, effect], journal, limits: { maxConcurrentCalls: 1 } });
    const context = { grantedTools: ['held', 'effect'] };
    const running = registry.dispatch({ callId: 'a', name: 'held', arguments: { index: 0 } }, context);
    const waiting = registry.dispatch({ callId: 'b', name: 'effect', arguments: {} }, context);
    await settle();
    expect(journal.log).toEqual([]);
    held.release(0);
    expect(await waiting).toMatchObject({ ok: true, value: 'ran' });
    expect(journal.log).toEqual(['prepare:b', 'settle:claim-1']);
    await running;
  });

  it('gives a call\'s place back while another agent takes its turn, whose calls need places on this registry', async () => {
    const plain = defineTool({ name: 'plain', description: 'Runs.', input: z.object({}), dispatch: () => 'plain' });
    const delegate = defineTool({
      name: 'delegate',
      description: 'Asks another agent.',
      input: z.object({}),
      dispatch: async (_args, _host, context) => context.invokeAgent?.('helper', {}, context.signal),
    });
    const registry = createToolRegistry({ tools: [plain, delegate], limits: { maxConcurrentCalls: 1 } });
    const invokeAgent = async (): Promise<unknown> => {
      const outcome = await registry.dispatch({ callId: 'sub', name: 'plain', arguments: {} }, { grantedTools: ['plain'] });
      return outcome.ok ? outcome.value : outcome.error.code;
    };
    const outcome = await registry.dispatch({ callId: 'd', name: 'delegate', arguments: {} }, { grantedTools: ['delegate'], invokeAgent });
    expect(outcome).toMatchObject({ ok: true, value: 'plain' });
    // Its place came back to it, and went on to the next call once it finished.
    expect(await registry.dispatch({ callId: 'p', name: 'plain', arguments: {} }, { grantedTools: ['plain'] })).toMatchObject({ ok: true });
  });

  it('runs a server\'s calls in its share, half the places, so calls to another server or to none still run', async () => {
    const upstream = heldTool('upstream');
    const other = heldTool('other');
    // Its target names an MCP server, as every upstream tool's does (and mcp_call's).
    const onServer = (server: string, tool: ReturnType<typeof heldTool>['tool']) => ({ ...tool, policyTarget: () => ({ server, mcpTool: tool.name, mcpArguments: {} }) });
    const local = defineTool({ name: 'local', description: 'Runs.', input: z.object({}), dispatch: () => 'local' });
    const registry = createToolRegistry({ tools: [onServer('slow', upstream.tool), onServer('fine', other.tool), local], limits: { maxConcurrentCalls: 4 } });
    const context = { grantedTools: ['upstream', 'other', 'local'] };
    const hanging = [0, 1, 2, 3, 4].map((index) => registry.dispatch({ callId: `u${index}`, name: 'upstream', arguments: { index } }, context));
    await settle();
    expect(upstream.started).toEqual([0, 1]);
    expect(await registry.dispatch({ callId: 'l', name: 'local', arguments: {} }, context)).toMatchObject({ ok: true, value: 'local' });
    const fine = registry.dispatch({ callId: 'f', name: 'other', arguments: { index: 9 } }, context);
    await settle();
    expect(other.started).toEqual([9]);
    other.release(9);
    expect(await fine).toMatchObject({ ok: true, value: 9 });
    for (const index of [0, 1, 2, 3, 4]) {
      upstream.release(index);
      await settle();
    }
    expect((await Promise.all(hanging)).every((outcome) => outcome.ok)).toBe(true);
    expect(upstream.peak()).toBe(2);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => createToolRegistry({ tools: [], limits: { maxConcurrentCalls: 0 } })).toThrow(/limits\.maxConcurrentCalls/);
    expect(() => createToolRegistry({ tools: [], limits: { maxQueuedCalls: 1.5 } })).toThrow(/limits\.maxQueuedCalls/);
  });
});
