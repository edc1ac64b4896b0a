import type { WorkspaceMembers } from '../action/resolved-action.js';
import { commandReadings, programReadings } from './command-readings.js';
import { wrappedCommands } from './exec-wrappers.js';
import { programName } from './lookup-program.js';
import { givesOption, runnerOptionValues, type OptionGrammar } from './runner-options.js';

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
interface Runner {
  /** Its files, in the folder it runs in. */
  readonly files: readonly string[];
  /** The options that move that folder (`npm --prefix dir`, `make -C dir`): with one, the folder is the value. */
  readonly folder: readonly string[];
  /**
   * make reads each `-C` below the one before (`make -C a -C b` runs in `a/b`); npm and its kin take the last.
   */
  readonly folderAdds?: true;
  /** The options naming the file itself instead of `files` (`make -f other.mk`), read in the folder it runs in. */
  readonly fileOptions?: readonly string[];
  /** How it reads its options (`runner-options.ts`): npm and pnpm as their parser, nopt, does; the rest as spelled. */
  readonly grammar: OptionGrammar;
  /** The options naming a member folder it runs the code of too (`npm test -w packages/a` runs `packages/a/package.json`). */
  readonly memberOptions?: readonly string[];
  /**
   * The options selecting members by something other than their folder (`npm test --workspaces`, `pnpm --filter
   * app`, `pnpm -r`), whose folders only its own file names: their code is not bound, and the card says so.
   */
  readonly everyMember?: readonly string[];
  /** The words selecting members that way (`yarn workspace app test`, `yarn workspaces foreach`). */
  readonly memberWords?: readonly string[];
  /**
   * The file naming its workspace's members, beside each of its own files, where it is not that file itself
   * (pnpm's `pnpm-workspace.yaml`): bound as its own files are, a rewrite adding a member is a change.
   */
  readonly memberList?: string;
  /**
   * It takes its file from the nearest folder above that has one, when the
   * folder it runs in has none (npm in a folder with no `package.json` runs
   * the scripts of the one above): the file of each folder above, up to the
   * workspace root, is read too. `unless-moved`: an option naming its folder
   * stops the climb (npm's `--prefix` is the folder, whatever it holds);
   * pnpm, yarn and bun run as if started there, and climb from it.
   */
  readonly climbs?: 'always' | 'unless-moved';
}

const PACKAGE_RUNNER: Runner = { files: ['package.json'], folder: ['--prefix', '-C', '--dir', '--cwd'], climbs: 'always', grammar: 'getopt' };
const RUNNERS: ReadonlyMap<string, Runner> = new Map([
  // npm moves only by `--prefix` (and `-C`): it reads `--dir` and `--cwd` as settings of no effect, and climbs as if
  // they were not there. Its `-ws` (every workspace) is not `-w s`: nopt reads it whole, before any cluster.
  ['npm', { files: ['package.json'], folder: ['--prefix', '-C'], climbs: 'unless-moved', grammar: 'nopt', memberOptions: ['--workspace', '-w'], everyMember: ['--workspaces', '--ws'] }],
  ['pnpm', { ...PACKAGE_RUNNER, grammar: 'nopt', memberList: 'pnpm-workspace.yaml', everyMember: ['--filter', '-F', '--filter-prod', '--recursive', '-r'] }],
  ['yarn', { ...PACKAGE_RUNNER, memberWords: ['workspace', 'workspaces'] }],
  ['bun', { ...PACKAGE_RUNNER, everyMember: ['--filter', '-F', '--workspaces'] }],
  ...['make', 'gmake'].map((name): [string, Runner] => [
    name,
    { files: ['GNUmakefile', 'makefile', 'Makefile'], folder: ['-C', '--directory'], folderAdds: true, fileOptions: ['-f', '--file', '--makefile'], grammar: 'getopt' },
  ]),
]);

/** What a command's runners read their code from: each file joined to the folder the runner reads it in. */
export interface RunnerCode {
  /** The runners' program names (`npm`, `make`), for a card to say which. */
  readonly programs: readonly string[];
  /** The files, relative to the working directory (or absolute, where an option names an absolute folder). */
  readonly files: readonly string[];
  /**
   * A runner selects workspace members (`-w`, `--workspaces`) and not each of
   * their files is bound: no host said which members its workspace names
   * (`members` of `runnerCode`), or not all of them (`WorkspaceMembers.cut`,
   * past `MAX_RUNNER_FILES`). Only the members an option names by folder are.
   */
  readonly members?: true;
  /**
   * The files naming the members of the workspaces a runner selects members
   * of (`package.json`, `pnpm-workspace.yaml`), in the folder it runs in and
   * each above that it climbs to, spelled as `files`: a host says which
   * member folders each names, given back as `members`, in this order.
   */
  readonly roots?: readonly string[];
  /** The folders the workspaces' globs listed (`WorkspaceMembers.listed`), spelled as `files`: each listing is bound. */
  readonly listings?: readonly string[];
  /**
   * More files than `MAX_RUNNER_FILES` (a climb from a folder thousands deep,
   * hundreds of `-w`): the rest were not listed, none is bound, and the
   * command is judged as naming a protected path (`resolvableArguments`).
   */
  readonly cut?: true;
}

/**
 * The most files one command's runners are read from. A host resolves them
 * beside the argument paths, and past `MAX_RESOLVED_ARGUMENTS` it resolves
 * none, so no more are worth a listing. Unbounded, a climb listed one file
 * per folder above the one it runs in, each spelled with one more `../`:
 * `pnpm -C` a folder 4,096 deep in a working directory 2,048 deep made
 * thousands of names of 10 KB each for the card, and held the gateway's
 * thread for 2 s.
 */
export const MAX_RUNNER_FILES = 64;

/**
 * The code the runners among a command and the commands its exec wrappers
 * run (`timeout 60 npm test`) read by convention; undefined when none is a
 * runner. `cwd` is the working directory as the call spells it, from the
 * workspace root: how many folders a climbing runner may look in above it.
 * `climbs`, where a host found them, says it instead: for each folder a
 * runner climbs from (`climbFolders`), in order, how deep it really is
 * (`realDepth`). A runner started by a shell string (`sh -c 'npm test'`) is
 * not read: no shell's grammar is.
 */
export function runnerCode(argv: readonly string[], cwd = '.', climbs?: readonly number[], members?: readonly WorkspaceMembers[]): RunnerCode | undefined {
  const programs: string[] = [];
  const files: string[] = [];
  const roots: string[] = [];
  let selecting = false;
  let cut = false;
  let climbing = 0;
  const list = (file: string): void => {
    if (files.length < MAX_RUNNER_FILES) files.push(file);
    else cut = true;
  };
  for (const { name, runner, folder, climbs: climbsUp, makefiles, members: named, selects } of runnersOf(argv)) {
    if (!programs.includes(name)) programs.push(name);
    const inFolder = (file: string): string => (folder === undefined ? file : `${folder}/${file}`);
    // The workspace whose members it selects is named in the folder it runs in or one it climbs to: each is asked.
    const rootIn = (above: string): void => {
      if (!selects) return;
      const root = inFolder(`${above}${runner.memberList ?? runner.files[0]}`);
      if (runner.memberList !== undefined) list(root);
      roots.push(root);
    };
    for (const file of makefiles.length > 0 ? makefiles : runner.files) list(ABSOLUTE.test(file) ? file : inFolder(file));
    rootIn('');
    // Each member an option may name is bound, whatever else selects members: binding more is harmless.
    for (const member of named) for (const file of runner.files) list(inFolder(`${member}/${file}`));
    if (selects) selecting = true;
    if (!climbsUp) continue;
    const depth = climbs?.[climbing] ?? depthOf(cwd, folder);
    climbing += 1;
    // Spelled with `..` from the folder it runs in, so each is walked as the kernel climbs, through a link or not.
    for (let up = '../', level = depth; level > 0 && !cut; level -= 1, up += '../') {
      for (const file of runner.files) list(inFolder(`${up}${file}`));
      rootIn(up);
    }
  }
  if (programs.length === 0) return undefined;
  const asked = [...new Set(roots)].slice(0, MAX_RUNNER_FILES);
  const bound = cut ? undefined : membersBound(asked, members, files.length);
  const unbound = selecting && (bound === undefined || bound.cut);
  return {
    programs,
    files: bound === undefined ? files : [...files, ...bound.files],
    ...(unbound ? { members: true as const } : {}),
    ...(cut ? { cut: true as const } : {}),
    ...(asked.length === 0 ? {} : { roots: asked }),
    ...(bound === undefined || bound.listings.length === 0 ? {} : { listings: bound.listings }),
  };
}

/**
 * The `package.json` of each member the host found the workspaces of `roots`
 * name, and the folders its globs listed, each spelled from the folder its
 * root is in; as many as fit beside `listed` files under `MAX_RUNNER_FILES`.
 * Undefined when no host answered. `cut`: some member is not among them.
 */
function membersBound(roots: readonly string[], found: readonly WorkspaceMembers[] | undefined, listed: number): { files: string[]; listings: string[]; cut: boolean } | undefined {
  if (found === undefined || found.length !== roots.length) return undefined;
  const files: string[] = [];
  const listings: string[] = [];
  let cut = false;
  const add = (to: string[], path: string): void => {
    if (listed + files.length + listings.length < MAX_RUNNER_FILES) to.push(path);
    else cut = true;
  };
  roots.forEach((root, index) => {
    const members = found[index] as WorkspaceMembers;
    const folder = root.slice(0, root.lastIndexOf('/') + 1);
    if (members.cut === true) cut = true;
    for (const listing of members.listed) add(listings, `${folder}${listing}`);
    for (const member of members.members) add(files, `${folder}${member}/package.json`);
  });
  return { files, listings, cut };
}

/** The runners a command starts whose code no approval binds (`unboundRunners`). */
export interface UnboundRunners {
  /** The runners' program names, each once. */
  readonly programs: readonly string[];
  /**
   * The command's readings were cut (`CommandReadings.cut`): it runs commands
   * toolgate did not read, and a runner among them is named by none of `programs`.
   */
  readonly unread: boolean;
}

/**
 * The folder each climbing runner of a command climbs from, as the command
 * spells it from its working directory (`.` where no option moves it), in
 * order. Spelled, it is climbed only as deep as it is spelled: with `sub` a
 * link to `x/y`, npm runs in `x/y` and reads the `package.json` of `x/y`,
 * `x` and the workspace root, where `sub/..` is `x` and `sub/../..` is
 * above the root. A host resolves these first, and the climb takes as many
 * steps as each really is deep (`realDepth`).
 */
export function climbFolders(argv: readonly string[]): readonly string[] {
  return runnersOf(argv)
    .filter((run) => run.climbs)
    .slice(0, MAX_RUNNER_FILES)
    .map((run) => run.folder ?? '.');
}

/**
 * How many folders a real path, as a host answers it, is below the root a
 * climb ends at: the workspace root for one inside it (spelled from that
 * root, `.` being 0), the filesystem's root for one outside (absolute),
 * which is where npm's climb ends there.
 */
export function realDepth(real: string): number {
  let depth = 0;
  for (const part of real.split(/[\\/]/)) if (part !== '' && part !== '.') depth += 1;
  return depth;
}

/** One runner a command starts, read from its argv. */
interface RunnerRun {
  readonly name: string;
  readonly runner: Runner;
  /** The folder it runs in, from the working directory, when an option moves it. */
  readonly folder: string | undefined;
  /** It takes its file from the folders above too (`Runner.climbs`). */
  readonly climbs: boolean;
  /** The files its options name instead of `Runner.files` (`make -f x.mk`). */
  readonly makefiles: readonly string[];
  /** The member folders its options name (`npm -w packages/a`). */
  readonly members: readonly string[];
  /** It selects members, by folder or otherwise (`RunnerCode.members`). */
  readonly selects: boolean;
}

/**
 * The runners among a command and the commands its exec wrappers run, in
 * order. A runner given an option it may or may not read as moving its
 * folder (`npm --pre dir`, `-Cdir`: `OptionValue.sure` false) is read once
 * for each folder it may run in, so the files of each are bound: the one the
 * sure options name (or none, and npm climbs), and each unsure one.
 */
function runnersOf(argv: readonly string[]): RunnerRun[] {
  const runs: RunnerRun[] = [];
  for (const command of wrappedCommands(argv)) {
    const name = programName(command[0] ?? '');
    const runner = RUNNERS.get(name);
    if (runner === undefined) continue;
    const readings = runnerOptionValues(command, runner.folder, runner.grammar);
    const sure = readings.filter((reading) => reading.sure).map((reading) => reading.value);
    const folder = runner.folderAdds === true ? sure.reduce<string | undefined>(below, undefined) : sure.at(-1);
    const unsure = readings.filter((reading) => !reading.sure).map((reading) => reading.value);
    const makefiles = valuesOf(command, runner, runner.fileOptions);
    const members = valuesOf(command, runner, runner.memberOptions);
    const selects = members.length > 0 || selectsMembers(command, runner);
    for (const each of new Set([folder, ...unsure])) {
      // Each run lists a file at least, so one past `MAX_RUNNER_FILES` already cuts the listing: no more are read.
      if (runs.length > MAX_RUNNER_FILES) break;
      const climbs = runner.climbs === 'always' || (runner.climbs === 'unless-moved' && each === undefined);
      runs.push({ name, runner, folder: each, climbs, makefiles, members, selects });
    }
  }
  return runs;
}

/** The values `options` give in the runner's grammar, each that may be read as one. */
function valuesOf(command: readonly string[], runner: Runner, options: readonly string[] | undefined): string[] {
  return runnerOptionValues(command, options ?? [], runner.grammar, runner.everyMember).map((reading) => reading.value);
}

/** The runner selects members by something other than their folder (`Runner.everyMember`, `Runner.memberWords`). */
function selectsMembers(command: readonly string[], runner: Runner): boolean {
  if (givesOption(command, runner.everyMember ?? [], runner.grammar)) return true;
  const words = runner.memberWords ?? [];
  return command.some((arg, index) => index > 0 && words.includes(arg));
}

/**
 * The runners a command starts whose code `runnerCode` does not read, so no
 * approval binds it: one inside a shell string (`sh -c 'cd sub && npm
 * test'`, where a `cd` before it moves the folder it reads its file in) or
 * started by a program toolgate does not know (`setarch x86_64 make test`).
 * Each command a deny or ask reads of the argv (`commandReadings`) whose
 * program is a runner, other than the readings of a runner `runnerCode`
 * binds. A card says so: `npm test` alone binds `package.json`, and the
 * same words inside a string would read as if they did. Where the readings
 * were cut (a string nested too deep, an argv past what is read), a runner
 * may stand in what was not read: `unread` says so, for the card to say it too.
 */
export function unboundRunners(argv: readonly string[]): UnboundRunners {
  const isRunner = (command: readonly string[]): boolean => RUNNERS.has(programName(command[0] ?? ''));
  const bound = new Set(wrappedCommands(argv).filter(isRunner).flatMap(programReadings).map((form) => form.join('\0')));
  const unbound = new Set<string>();
  const readings = commandReadings(argv);
  for (const form of readings.forms) if (isRunner(form) && !bound.has(form.join('\0'))) unbound.add(programName(form[0] ?? ''));
  return { programs: [...unbound], unread: readings.cut };
}

const ABSOLUTE = /^[\\/]/;

/** `folder` read below `base` (make's next `-C`): an absolute one starts again. */
function below(base: string | undefined, folder: string): string {
  return base === undefined || ABSOLUTE.test(folder) ? folder : `${base}/${folder}`;
}

/** How many folders the run folder (`folder` below `cwd`) is below the workspace root as spelled; 0 when it is absolute or climbs out. */
function depthOf(cwd: string, folder: string | undefined): number {
  if (ABSOLUTE.test(cwd) || (folder !== undefined && ABSOLUTE.test(folder))) return 0;
  let depth = 0;
  for (const part of `${cwd}/${folder ?? '.'}`.split(/[\\/]/)) {
    if (part === '..') depth -= 1;
    else if (part !== '' && part !== '.') depth += 1;
    if (depth < 0) return 0;
  }
  return depth;
}
