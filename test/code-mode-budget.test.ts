// Runs against the built package (npm test builds first), in a child process of its own so its heap is measured alone.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const FLOOD = fileURLToPath(new URL('./__fixtures__/code-mode-flood-child.mjs', import.meta.url));
const MIB = 1024 * 1024;
/** The child's old-space cap: before the budget, this script exhausted it and the process aborted. */
const HEAP_CAP_MIB = 384;

function flood(calls: number, fileMiB: number): Promise<{ exit: number | null; report: Record<string, unknown> | undefined; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', `--max-old-space-size=${HEAP_CAP_MIB}`, FLOOD, String(calls), String(fileMiB)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (exit) => {
      const line = stdout.split('\n').find((text) => text.startsWith('{'));
      resolve({ exit, report: line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>), stderr });
    });
  });
}

describe('Code Mode inside a budget (a real process, its heap capped)', () => {
  it('256 concurrent reads of a 10 MiB file end with a typed, loop-correctable result_budget error, and the heap stays under the stated bound', async () => {
    const { exit, report, stderr } = await flood(256, 10);
    expect(stderr).not.toContain('heap out of memory');
    expect(exit).toBe(0);
    expect(report).toMatchObject({ ok: false, code: 'EXECUTION_FAILED', reason: 'result_budget', loopCorrectable: true });
    expect(report?.message).toContain('the result of read_file is larger than the 5.9 MiB left of the script\'s 16.0 MiB budget');
    // maxConcurrentCalls (8) ran at once; each of the two results that came back let one queued call start; the rest never did.
    expect(report?.nestedResults).toBeLessThanOrEqual(8 + 2);
    // The bound docs/code-mode.md states: maxConcurrentCalls × 3 × the largest result, plus 2 × maxDeliveredBytes, over the baseline.
    const bound = 8 * 3 * 10 * MIB + 2 * 16 * MIB;
    const grown = Number(report?.peakHeap) - Number(report?.baselineHeap);
    expect(grown).toBeGreaterThan(10 * MIB); // the measurement saw the results
    expect(grown).toBeLessThan(bound);
  }, 120_000);
});
