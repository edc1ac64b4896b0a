/**
 * A tiny benchmark harness: every case runs in the same process, in
 * interleaved rounds (A B C, C A B, …) so drift and GC hit them alike; each
 * round times a batch of operations; the report gives the median time per
 * operation and the ratio to a named baseline case. Each round runs the
 * cases in another order: the garbage one case leaves is collected on the
 * time of whichever case next crosses V8's threshold, and in a fixed order
 * that was the same case round after round (a row that followed the peers'
 * allocation-heavy rows read four times its cost in some runs and not in
 * others). Shuffled, a collection lands on a different case each round, and
 * the median of the rounds leaves it out for every case alike.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export interface BenchCase {
  readonly name: string;
  /** One operation. May return a promise. */
  readonly run: () => unknown;
}

export interface BenchOptions {
  readonly title: string;
  /** The case ratios are computed against. Default: the first. */
  readonly baseline?: string;
  /** Operations per timed batch. Default 1,000. */
  readonly batch?: number;
  /** Timed rounds per case. Default 30. */
  readonly rounds?: number;
  /** Untimed warm-up batches per case. Default 5. */
  readonly warmup?: number;
}

export interface BenchRow {
  readonly name: string;
  /** Median nanoseconds per operation. */
  readonly medianNs: number;
  readonly p90Ns: number;
  readonly opsPerSecond: number;
  readonly ratio: number;
}

async function timeBatch(run: () => unknown, batch: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = 0; index < batch; index += 1) {
    const result = run();
    if (result instanceof Promise) await result;
  }
  return Number(process.hrtime.bigint() - started) / batch;
}

/** The cases in an order fixed by the round's number (a Fisher–Yates shuffle driven by mulberry32): every run tries the same orders. */
function shuffled<T>(cases: readonly T[], round: number): T[] {
  const order = [...cases];
  let state = (round + 1) * 0x9e3779b9;
  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = Math.floor(next() * (index + 1));
    [order[index], order[other]] = [order[other] as T, order[index] as T];
  }
  return order;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

export async function bench(cases: readonly BenchCase[], options: BenchOptions): Promise<BenchRow[]> {
  const batch = options.batch ?? 1000;
  const rounds = options.rounds ?? 30;
  const samples = new Map<string, number[]>(cases.map((entry) => [entry.name, []]));
  for (let round = 0; round < (options.warmup ?? 5); round += 1) for (const entry of cases) await timeBatch(entry.run, batch);
  for (let round = 0; round < rounds; round += 1) {
    for (const entry of shuffled(cases, round)) samples.get(entry.name)?.push(await timeBatch(entry.run, batch));
  }
  const medians = new Map<string, { median: number; p90: number }>();
  for (const [name, values] of samples) {
    const sorted = [...values].sort((left, right) => left - right);
    medians.set(name, { median: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) });
  }
  const baseline = medians.get(options.baseline ?? cases[0]?.name ?? '')?.median ?? Number.NaN;
  const rows = cases.map((entry) => {
    const { median, p90 } = medians.get(entry.name) ?? { median: Number.NaN, p90: Number.NaN };
    return { name: entry.name, medianNs: median, p90Ns: p90, opsPerSecond: 1e9 / median, ratio: median / baseline };
  });
  printTable(options.title, rows, options.baseline ?? cases[0]?.name ?? '');
  return rows;
}

/**
 * Median CPU time per operation of each case (user and system time of this
 * process), in interleaved rounds as `bench` runs them. On a shared machine
 * wall time also counts the time spent waiting for a core; CPU time does not
 * (cache and memory contention still show in it).
 */
export async function cpuTimes(cases: readonly BenchCase[], options: { readonly batch?: number; readonly rounds?: number } = {}): Promise<Map<string, number>> {
  const batch = options.batch ?? 1000;
  const samples = new Map<string, number[]>(cases.map((entry) => [entry.name, []]));
  for (let round = 0; round < (options.rounds ?? 15); round += 1) {
    for (const entry of shuffled(cases, round)) {
      const started = process.cpuUsage();
      await timeBatch(entry.run, batch);
      const used = process.cpuUsage(started);
      samples.get(entry.name)?.push(((used.user + used.system) * 1000) / batch);
    }
  }
  return new Map([...samples].map(([name, values]) => [name, percentile([...values].sort((left, right) => left - right), 0.5)]));
}

export function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

export function printTable(title: string, rows: readonly BenchRow[], baseline: string): void {
  const width = Math.max(...rows.map((row) => row.name.length), 4);
  const lines = [`\n## ${title}  (ratio vs "${baseline}")`, `${'case'.padEnd(width)}  ${'median'.padStart(10)}  ${'p90'.padStart(10)}  ${'ops/s'.padStart(12)}  ratio`];
  for (const row of rows) {
    lines.push(
      `${row.name.padEnd(width)}  ${formatNs(row.medianNs).padStart(10)}  ${formatNs(row.p90Ns).padStart(10)}  ${Math.round(row.opsPerSecond).toLocaleString('en-US').padStart(12)}  ${row.ratio.toFixed(2)}×`,
    );
  }
  console.log(lines.join('\n'));
}

export interface GoalRow {
  readonly goal: string;
  /** What the goal is, in the summary: `≤ 10 µs`, `≤ 1.05×`. */
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const goals: GoalRow[] = [];

/** Where a module run in a process of its own writes the goals it checked (see run.ts). */
export const GOALS_FILE_VARIABLE = 'TOOLGATE_BENCH_GOALS';

/** The goals checked in this process, for the process that started it. */
export function writeGoals(file: string): void {
  writeFileSync(file, JSON.stringify(goals));
}

/** Take in the goals a module's process checked, to list with this process's; false when the file holds none. */
export function readGoals(file: string): boolean {
  try {
    goals.push(...(JSON.parse(readFileSync(file, 'utf8')) as GoalRow[]));
    return true;
  } catch {
    return false;
  }
}

/**
 * Record a goal and how this run measured against it; `printGoals` lists them
 * all at the end of `npm run bench`, so a reader sees at a glance which are
 * met. `at most` (default): a value ≤ the limit meets it; `at least`: ≥.
 */
export function checkGoal(goal: string, measured: number, limit: number, unit: 'ns' | '×', direction: 'at most' | 'at least' = 'at most'): GoalRow {
  const met = direction === 'at least' ? measured >= limit : measured <= limit;
  const show = (value: number): string => (unit === 'ns' ? formatNs(value) : `${value.toFixed(2)}×`);
  const row = { goal, target: `${direction === 'at least' ? '≥' : '≤'} ${show(limit)}`, measured: show(measured), met };
  goals.push(row);
  console.log(`goal: ${goal}: ${row.target}; measured ${row.measured}: ${met ? 'met' : 'NOT met'}`);
  return row;
}

export function printGoals(): void {
  if (goals.length === 0) return;
  const width = Math.max(...goals.map((row) => row.goal.length), 4);
  const lines = [`\n## goals  (this run; the machine's load moves every figure, ratios less than times)`, `${'goal'.padEnd(width)}  ${'target'.padStart(10)}  ${'measured'.padStart(10)}  met?`];
  for (const row of goals) lines.push(`${row.goal.padEnd(width)}  ${row.target.padStart(10)}  ${row.measured.padStart(10)}  ${row.met ? 'yes' : 'NO'}`);
  console.log(lines.join('\n'));
}
