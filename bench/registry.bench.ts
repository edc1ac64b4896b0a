/**
 * Registry lookup among 10,000 tools, and listing / projecting 1,000 tools
 * after the first time, against the bare baselines in the same process: a
 * plain `Map.get`, and calling `z.toJSONSchema` on every tool each time.
 */
import { createToolRegistry, defineTool, type AnyToolDefinition } from 'toolgate';
import { z } from 'zod';
import { bench, checkGoal, type BenchRow } from './harness.js';

function makeTools(count: number): { definitions: AnyToolDefinition[]; schemas: z.ZodObject[] } {
  const definitions: AnyToolDefinition[] = [];
  const schemas: z.ZodObject[] = [];
  for (let index = 0; index < count; index += 1) {
    const schema = z.object({
      path: z.string().max(4096).describe('Workspace-relative path'),
      offset: z.number().int().min(0).optional(),
      mode: z.enum(['text', 'binary']).optional(),
      filters: z.object({ include: z.array(z.string()).max(16), depth: z.number().int().max(8).optional() }).optional(),
    });
    schemas.push(schema);
    definitions.push(defineTool({ name: `tool_${index}`, description: `Tool number ${index}.`, input: schema, dispatch: () => null }));
  }
  return { definitions, schemas };
}

async function benchLookup(): Promise<void> {
  const { definitions } = makeTools(10_000);
  const registry = createToolRegistry({ tools: definitions });
  const scoped = registry.scope('agent', { restrict: { deny: ['tool_1', 'tool_2'] } });
  const names = definitions.map((definition) => definition.name);
  const plain = new Map(definitions.map((definition) => [definition.name, definition]));
  // A fixed scattered order over 8,192 of the names: the same cheap index step for every case.
  const order = Array.from({ length: 8192 }, (_, index) => names[(index * 7919) % names.length]!);
  let cursor = 0;
  const next = (): string => order[(cursor = (cursor + 1) & 8191)]!;
  let sink: unknown;
  const rows = await bench(
    [
      { name: 'bare Map.get (10,000 entries)', run: () => (sink = plain.get(next())) },
      { name: 'registry.get (10,000 tools)', run: () => (sink = registry.get(next())) },
      { name: 'scoped registry.get (deny mask)', run: () => (sink = scoped.get(next())) },
      { name: 'registry.executionMode', run: () => (sink = registry.executionMode({ name: next(), arguments: { path: 'a' } })) },
    ],
    { title: 'lookup among 10,000 tools (goal ≤ 50 ns)', batch: 10_000, rounds: 30 },
  );
  if (sink === Symbol.for('never')) console.log(sink);
  // The loop that picks the next name and keeps the answer costs the bare map too: the goal is what the registry adds.
  checkGoal('lookup among 10,000 tools, beyond a bare Map.get', medianOf(rows, 'registry.get') - medianOf(rows, 'bare Map.get'), 50, 'ns');
}

function medianOf(rows: readonly BenchRow[], prefix: string): number {
  const found = rows.find((row) => row.name.startsWith(prefix));
  if (found === undefined) throw new Error(`no row ${prefix}`);
  return found.medianNs;
}

async function benchProjection(): Promise<void> {
  const { definitions, schemas } = makeTools(1_000);
  const built = performance.now();
  const registry = createToolRegistry({ tools: definitions });
  const projected = performance.now();
  // The first time: every tool's projection is computed once per tool version.
  registry.project('openai-chat');
  registry.project('gemini');
  registry.project('anthropic');
  const done = performance.now();
  console.log(`\nfirst time, once: build a registry of 1,000 zod tools ${(projected - built).toFixed(1)} ms; first projection for three providers ${(done - projected).toFixed(1)} ms`);
  const extra = defineTool({ name: 'extra', description: 'One more tool.', input: z.object({ a: z.string() }), dispatch: () => null });
  let sink: unknown;
  const rows = await bench(
    [
      {
        name: 'z.toJSONSchema on every tool, each time',
        run: () => (sink = schemas.map((schema, index) => ({ type: 'function', function: { name: `tool_${index}`, description: `Tool number ${index}.`, parameters: z.toJSONSchema(schema) } }))),
      },
      { name: 'registry.list() (same snapshot)', run: () => (sink = registry.list()) },
      { name: "registry.project('openai-chat') (same snapshot)", run: () => (sink = registry.project('openai-chat')) },
      { name: "new snapshot (with) → project('openai-chat')", run: () => (sink = registry.with([extra]).project('openai-chat')) },
      { name: "new scope view → project('gemini')", run: () => (sink = registry.scope('agent', { restrict: { deny: ['tool_1'] } }).project('gemini')) },
      { name: 'new snapshot (with) → list()', run: () => (sink = registry.with([extra]).list()) },
    ],
    { title: 'listing and projecting 1,000 tools after the first time (goal ≤ 5 ms)', batch: 1, rounds: 15, warmup: 2 },
  );
  if (sink === Symbol.for('never')) console.log(sink);
  const slowest = Math.max(...rows.filter((row) => !row.name.startsWith('z.toJSONSchema')).map((row) => row.medianNs));
  checkGoal('listing or projecting 1,000 tools after the first time, slowest row', slowest, 5_000_000, 'ns');
}

export async function run(): Promise<void> {
  await benchLookup();
  await benchProjection();
}
