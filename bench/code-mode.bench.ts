/**
 * Code Mode bridge overhead: twenty tool calls made from one `run_code`
 * script against the same twenty calls made natively through
 * `runToolCalls`, on one registry, in the same run. Every bridged call is a
 * full governed dispatch, so the difference is the sandbox and the bridge.
 */
import { createToolRegistry, defineTool, runToolCalls, type ToolCall } from 'toolgate';
import { createQuickJsRuntime } from 'toolgate/code-mode';
import { bench, formatNs } from './harness.js';

const CALLS = 20;

export async function run(): Promise<void> {
  const add = defineTool({
    name: 'add',
    description: 'Add two numbers.',
    input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
    isConcurrencySafe: () => true,
    dispatch: (args: Record<string, unknown>) => ({ sum: Number(args.a) + Number(args.b) }),
  });
  const registry = createToolRegistry({ tools: [add], presentAs: 'both', codeRuntime: createQuickJsRuntime() });
  const context = { grantedTools: new Set(['add', 'run_code']) };
  const calls: ToolCall[] = Array.from({ length: CALLS }, (_, index) => ({ callId: `c${index}`, name: 'add', arguments: { a: index, b: 1 } }));
  const sequential = `let total = 0; for (let i = 0; i < ${CALLS}; i++) total += (await tools.add({ a: i, b: 1 })).sum; return total;`;
  const parallel = `const results = await Promise.all(Array.from({ length: ${CALLS} }, (_, i) => tools.add({ a: i, b: 1 }))); return results.reduce((total, r) => total + r.sum, 0);`;
  const expected = (CALLS * (CALLS - 1)) / 2 + CALLS;

  const script = async (code: string, check: number | null): Promise<void> => {
    const outcome = await registry.dispatch({ callId: 'rc', name: 'run_code', arguments: { code } }, context);
    if (!outcome.ok || (check !== null && (outcome.value as { value: unknown }).value !== check)) throw new Error(`run_code failed: ${outcome.ok ? 'wrong value' : outcome.error.message}`);
  };
  const native = async (): Promise<void> => {
    const step = await runToolCalls(registry, calls, context);
    if (step.fatal !== undefined || step.results.length !== CALLS) throw new Error('native step failed');
  };

  const rows = await bench(
    [
      { name: `native: ${CALLS} calls via runToolCalls`, run: native },
      { name: `run_code: ${CALLS} calls, awaited in turn`, run: () => script(sequential, expected) },
      { name: `run_code: ${CALLS} calls, Promise.all`, run: () => script(parallel, expected) },
      { name: 'run_code: empty script (sandbox cost)', run: () => script('return null;', null) },
    ],
    { title: `Code Mode: ${CALLS} tool calls, script vs native`, batch: 10, rounds: 15, warmup: 2 },
  );
  // CPU time as well: on a shared machine, wall time also counts waiting for a core.
  const cpu = async (operation: () => Promise<void>, times: number): Promise<number> => {
    const started = process.cpuUsage();
    for (let index = 0; index < times; index += 1) await operation();
    const used = process.cpuUsage(started);
    return ((used.user + used.system) * 1000) / times;
  };
  const cpuNative = (await cpu(native, 200)) / CALLS;
  const cpuEmpty = await cpu(() => script('return null;', null), 50);
  const cpuBridged = ((await cpu(() => script(sequential, expected), 50)) - cpuEmpty) / CALLS;
  console.log(`CPU time: native ${formatNs(cpuNative)} per call, bridged ${formatNs(cpuBridged)} per call → bridge overhead ${formatNs(cpuBridged - cpuNative)} per call; sandbox ${formatNs(cpuEmpty)} per run_code`);

  const [nativeRow, sequentialRow, parallelRow, emptyRow] = rows;
  if (nativeRow === undefined || sequentialRow === undefined || parallelRow === undefined || emptyRow === undefined) return;
  const nativePerCall = nativeRow.medianNs / CALLS;
  const bridgePerCall = (sequentialRow.medianNs - emptyRow.medianNs) / CALLS;
  const bridgePerCallParallel = (parallelRow.medianNs - emptyRow.medianNs) / CALLS;
  console.log(
    [
      `native per call:                 ${formatNs(nativePerCall)}`,
      `bridged per call (in turn):      ${formatNs(bridgePerCall)}  → bridge overhead ${formatNs(bridgePerCall - nativePerCall)} per call`,
      `bridged per call (Promise.all):  ${formatNs(bridgePerCallParallel)}  → bridge overhead ${formatNs(bridgePerCallParallel - nativePerCall)} per call`,
      `fixed sandbox cost per run_code: ${formatNs(emptyRow.medianNs)}`,
    ].join('\n'),
  );
}
