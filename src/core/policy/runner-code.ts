import { wrappedCommands } from './exec-wrappers.js';
import { programName } from './lookup-program.js';

/**
 * The files a runner reads its code from by convention, in the folder it
 * runs in, which no argument names: npm and its kin run the scripts of
 * `package.json`, make the recipes of the first makefile it finds. What the
 * card of `npm test` shows is two words; what runs is what that file holds
 * when the command starts. Each file is resolved, stamped and re-checked at
 * the spawn as an argument's file is, so a change to it under the open card
 * refuses the command, and a remembered approval asks again once it
 * changed. A file the runner would take when it appears (make's
 * `GNUmakefile` before `Makefile`) is listed too: one planted there later
 * is a change.
 */
const RUNNERS: ReadonlyMap<string, Runner> = new Map([
  ...['npm', 'pnpm', 'yarn', 'bun'].map((name): [string, Runner] => [name, { files: ['package.json'], folder: ['--prefix', '-C', '--dir', '--cwd'] }]),
  ...['make', 'gmake'].map((name): [string, Runner] => [name, { files: ['GNUmakefile', 'makefile', 'Makefile'], folder: ['-C', '--directory'] }]),
]);

interface Runner {
  /** Its files, in the folder it runs in. */
  readonly files: readonly string[];
  /** The options that move that folder (`npm --prefix dir`, `make -C dir`): with one, the folder is the value. */
  readonly folder: readonly string[];
}

/** What a command's runners read their code from: each file joined to the folder the runner reads it in. */
export interface RunnerCode {
  /** The runners' program names (`npm`, `make`), for a card to say which. */
  readonly programs: readonly string[];
  /** The files, relative to the working directory (or absolute, where an option names an absolute folder). */
  readonly files: readonly string[];
}

/**
 * The code the runners among a command and the commands its exec wrappers
 * run (`timeout 60 npm test`) read by convention; undefined when none is a
 * runner. A runner started by a shell string (`sh -c 'npm test'`) is not
 * read: no shell's grammar is.
 */
export function runnerCode(argv: readonly string[]): RunnerCode | undefined {
  const programs: string[] = [];
  const files: string[] = [];
  for (const command of wrappedCommands(argv)) {
    const name = programName(command[0] ?? '');
    const runner = RUNNERS.get(name);
    if (runner === undefined) continue;
    programs.push(name);
    const folder = folderOf(command, runner.folder);
    for (const file of runner.files) files.push(folder === undefined ? file : `${folder}/${file}`);
  }
  return programs.length === 0 ? undefined : { programs, files };
}

/** The folder an option moves a runner to (its last value), relative to the working directory or absolute; undefined when none does. */
function folderOf(command: readonly string[], options: readonly string[]): string | undefined {
  let folder: string | undefined;
  for (let index = 1; index < command.length; index += 1) {
    const arg = command[index] as string;
    if (arg === '--') break;
    const option = options.find((name) => arg === name || arg.startsWith(`${name}=`) || (!name.startsWith('--') && arg.startsWith(name) && arg.length > name.length));
    if (option === undefined) continue;
    const value = arg === option ? command[(index += 1)] : arg.slice(arg.charAt(option.length) === '=' ? option.length + 1 : option.length);
    // A folder no path can name (a NUL) is left out, as an argument holding one is.
    if (value !== undefined && value !== '' && !value.includes('\0')) folder = value;
  }
  return folder;
}
