import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createFakeHost, recordEvents } from '../../testing/index.js';
import { defineTool } from '../tools/define-tool.js';
import { unwrapUntrusted } from '../untrusted/untrusted.js';
import { harness } from './__fixtures__/pipeline-fixtures.js';

const big = 'line of output\n'.repeat(5000); // 75,000 bytes, 5,000 lines
const tool = defineTool({ name: 'dump', description: 'Dump.', input: z.object({}), dispatch: () => big });
const grants = { grantedTools: ['dump'] };

describe('bounding and spill (stage 17)', () => {
  it('spills the full text to host.outputStore and shows preview + marker + handle', async () => {
    const { registry, host } = harness([tool]);
    const recording = recordEvents(registry);
    const outcome = await registry.dispatch({ callId: 'c', name: 'dump', arguments: {} }, grants);
    const content = unwrapUntrusted(outcome.content);
    expect(content.split('\n').length).toBeLessThanOrEqual(2001);
    expect(new TextEncoder().encode(content).length).toBeLessThan(32 * 1024 + 300);
    expect(content).toMatch(/\[toolgate: output truncated — .*full output: spill:1\]$/);
    expect(host.spills.get('spill:1')).toBe(big);
    expect(outcome.ok && outcome.value).toBe(big);
    expect(outcome.receipt.spill).toEqual({ handle: 'spill:1', bytes: big.length });
    expect(recording.of('output-spilled')).toMatchObject([{ handle: 'spill:1', bytes: big.length }]);
  });

  it('without an output store it is still bounded and the marker says nothing was stored', async () => {
    const { registry } = harness([tool], { host: createFakeHost({ without: ['outputStore'] }) });
    const outcome = await registry.dispatch({ callId: 'c', name: 'dump', arguments: {} }, grants);
    const content = unwrapUntrusted(outcome.content);
    expect(content).toMatch(/the full output was not stored\]$/);
    expect(content.length).toBeLessThan(33_000);
  });

  it('a failing store still yields a bounded preview', async () => {
    const { registry, host } = harness([tool]);
    host.script('outputStore.spill', { fault: new Error('disk full') });
    const outcome = await registry.dispatch({ callId: 'c', name: 'dump', arguments: {} }, grants);
    expect(outcome.ok).toBe(true);
    expect(unwrapUntrusted(outcome.content)).toMatch(/not stored\]$/);
  });

  it('honours per-call limits and leaves small results untouched', async () => {
    const { registry } = harness([tool]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'dump', arguments: {} }, { ...grants, limits: { maxLines: 3 } });
    expect(unwrapUntrusted(outcome.content).startsWith('line of output\nline of output\nline of output\n[toolgate')).toBe(true);
    const small = harness([defineTool({ name: 'dump', description: 'x', input: z.object({}), dispatch: () => 'tiny' })]);
    expect(unwrapUntrusted((await small.registry.dispatch({ callId: 'c', name: 'dump', arguments: {} }, grants)).content)).toBe('tiny');
  });
});
