/**
 * `npm run bench`: every `*.bench.js` module beside this file, in name
 * order, each in a process of its own. A module exports
 * `run(): Promise<void>`; its child sends back the goals it checked, and the
 * goals of every module are listed last, each with its target, the measured
 * value and whether it is met. A process per module keeps one module's heap
 * and compiled code off the next one's figures: run in one process, the
 * dispatch rows after the Code Mode module paid for the garbage its sandboxes
 * left (the plain `add` overhead read about a third more than in a process
 * of its own). The rows inside a module still share a process, so every
 * ratio compares cases measured side by side.
 */
import { fork } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkedGoals, printGoals, type GoalRow } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const moduleFile = process.env.TOOLGATE_BENCH_MODULE;

if (moduleFile === undefined) {
  const only = process.argv.slice(2);
  const modules = (await readdir(here)).filter((file) => file.endsWith('.bench.js') && (only.length === 0 || only.some((name) => file.includes(name)))).sort();
  const goals: GoalRow[] = [];
  for (const file of modules) goals.push(...(await runInChild(file)));
  printGoals(goals);
} else {
  const module = (await import(pathToFileURL(`${here}/${moduleFile}`).href)) as { run: () => Promise<void> };
  console.log(`\n# ${moduleFile.replace(/\.js$/, '')}`);
  await module.run();
  // Disconnected once sent: an open channel to the parent would keep this process alive.
  process.send?.(checkedGoals(), () => process.disconnect());
}

/** One module in a child process, as `node --expose-gc` runs this file; resolves to the goals it checked, or fails with it. */
function runInChild(file: string): Promise<GoalRow[]> {
  return new Promise((resolve, reject) => {
    let goals: GoalRow[] = [];
    const child = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--expose-gc'], env: { ...process.env, TOOLGATE_BENCH_MODULE: file }, stdio: 'inherit' });
    child.on('message', (message) => {
      goals = message as GoalRow[];
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve(goals) : reject(new Error(`${file} ended with ${signal ?? `exit code ${code}`}`))));
  });
}
