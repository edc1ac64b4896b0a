/**
 * `npm run bench`: every `*.bench.js` module beside this file (or those
 * whose names contain an argument), in name order, each in a process of its
 * own. A module exports `run(): Promise<void>`. Run one after another in one
 * process, a module was timed on the code, the garbage and the type
 * feedback the modules before it left in V8: the plain path's figures moved
 * by a fifth with the order of the modules. Each module's goals come back
 * to this process, which lists them all last, each with its target, the
 * measured value and whether it is met.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GOALS_FILE_VARIABLE, printGoals, readGoals, writeGoals } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const goalsFile = process.env[GOALS_FILE_VARIABLE];

if (goalsFile !== undefined) {
  // A module's own process: run it, and hand its goals to the process that started it.
  const file = args[0];
  if (file === undefined) throw new Error(`${GOALS_FILE_VARIABLE} is set: name the module to run`);
  const module = (await import(pathToFileURL(join(here, file)).href)) as { run: () => Promise<void> };
  try {
    await module.run();
  } finally {
    // The goals checked before a failure are listed too; the failure still ends this process with a status.
    writeGoals(goalsFile);
  }
  // A handle a module left open would keep its process, and the whole run, waiting.
  process.exit(0);
} else {
  const modules = readdirSync(here).filter((file) => file.endsWith('.bench.js') && (args.length === 0 || args.some((name) => file.includes(name)))).sort();
  if (modules.length === 0) throw new Error(`no bench module matches ${args.join(', ')}`);
  const scratch = mkdtempSync(join(tmpdir(), 'toolgate-bench-goals-'));
  const failed: string[] = [];
  try {
    for (const [index, file] of modules.entries()) {
      console.log(`\n# ${file.replace(/\.js$/, '')}  (module ${index + 1} of ${modules.length})`);
      const ownGoals = join(scratch, `${index}.json`);
      const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), file], { stdio: 'inherit', env: { ...process.env, [GOALS_FILE_VARIABLE]: ownGoals } });
      // A module that fails is named at the end; the others still run, and every goal checked is listed.
      const read = existsSync(ownGoals) ? readGoals(ownGoals) : false;
      if (child.status !== 0 || !read) failed.push(`${file} (${child.error?.message ?? child.signal ?? `status ${child.status}`}${read ? '' : ', no goals written'})`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  printGoals();
  if (failed.length > 0) {
    console.error(`\nfailed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}
