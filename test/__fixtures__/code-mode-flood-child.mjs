// One Code Mode script that reads a large file many times at once, through the built package.
// argv: <calls> <file MiB>. Prints one JSON line: how the run ended and the largest heap seen.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolRegistry } from 'toolgate';
import { createQuickJsRuntime } from 'toolgate/code-mode';
import { builtinTools, createNodeHost } from 'toolgate/node';

const calls = Number(process.argv[2] ?? 256);
const fileMiB = Number(process.argv[3] ?? 10);
const root = mkdtempSync(join(tmpdir(), 'toolgate-read-flood-'));
const workspace = join(root, 'ws');
const line = `${'x'.repeat(99)}\n`;
try {
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'big.txt'), line.repeat((fileMiB * 1024 * 1024) / line.length));
  const host = createNodeHost({ workspace, spillDir: join(root, 'spill') });
  const registry = createToolRegistry({ tools: builtinTools, host, presentAs: 'code', codeRuntime: createQuickJsRuntime({ timeoutMs: 120_000, cpuTimeMs: 60_000 }) });
  global.gc?.();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let results = 0;
  const sample = () => (peak = Math.max(peak, process.memoryUsage().heapUsed));
  // Sampled between tasks, and at every nested result, while its value is still held.
  const timer = setInterval(sample, 1);
  registry.on('tool-result', () => {
    results += 1;
    sample();
  });
  const code = `const settled = await Promise.allSettled(Array.from({ length: ${calls} }, () => tools.read_file({ path: 'big.txt' })));
    return settled.map((entry) => entry.status === 'fulfilled' ? entry.value.content.length : entry.reason.code);`;
  const outcome = await registry.dispatch({ callId: 'flood', name: 'run_code', arguments: { code } }, { grantedTools: ['run_code', 'read_file'] });
  clearInterval(timer);
  sample();
  process.stdout.write(
    `${JSON.stringify({
      ok: outcome.ok,
      code: outcome.ok ? undefined : outcome.error.code,
      reason: outcome.ok ? undefined : outcome.error.reason,
      loopCorrectable: outcome.ok ? undefined : outcome.error.loopCorrectable,
      message: outcome.ok ? undefined : outcome.error.message,
      nestedResults: results - 1,
      baselineHeap: baseline,
      peakHeap: peak,
    })}\n`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
