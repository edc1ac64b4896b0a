/**
 * `npm run bench`: every `*.bench.js` module beside this file, in name
 * order, in one process. A module exports `run(): Promise<void>`; the goals
 * the modules checked are listed last, each with its target, the measured
 * value and whether it is met.
 */
import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { printGoals } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const modules = (await readdir(here)).filter((file) => file.endsWith('.bench.js') && (only.length === 0 || only.some((name) => file.includes(name)))).sort();
for (const file of modules) {
  const module = (await import(pathToFileURL(`${here}/${file}`).href)) as { run: () => Promise<void> };
  console.log(`\n# ${file.replace(/\.js$/, '')}`);
  await module.run();
}
printGoals();
