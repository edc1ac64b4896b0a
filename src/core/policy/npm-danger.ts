import { npmCommandsAt } from './npm-command-readings.js';

/** What a glob-admitted npm command is refused for: the form, never its value. */
const NPM_FORM = 'npm exec/x, explore, init/create <initializer>, --script-shell, --node-options';

/** npm's options that name a program or code it runs: each by any abbreviation npm expands, down to the length given. */
const CODE_OPTIONS: readonly (readonly [string, number])[] = [
  ['script-shell', 4],
  ['node-options', 6],
];

/** The commands that run a program or package the arguments name: `exec` (any spelling npm reads as it), `explore`'s shell. */
const RUNS_WHAT_IT_IS_GIVEN = new Set(['exec', 'explore']);

/** `init` and `create` run a package initializer (`npm init vite` is `npm exec create-vite`) when they are given one. */
const INITIALIZES = new Set(['init']);

/**
 * npm read as npm reads its command line (`npmCommandsAt`): `exec` under
 * every spelling (`x`, `exe`, after options), `explore` (a shell string
 * after `--`, or `--shell=…`, runs in a package's folder), `init` or
 * `create` with an initializer, and `--script-shell` or `--node-options`
 * before `--` (a program to run scripts with, a `--require` or `--import`
 * for every node it starts). Under a glob such as `npm *` each ran what the
 * model named with nobody asked: a deny of `npm exec` did not cover `npm
 * explore left-pad -- 'touch ../../x'`.
 */
export function npmDanger(args: readonly string[]): string | undefined {
  const end = args.indexOf('--');
  const own = end === -1 ? args : args.slice(0, end);
  if (own.some(namesCode)) return NPM_FORM;
  for (const { place, command } of npmCommandsAt(['npm', ...args])) {
    if (RUNS_WHAT_IT_IS_GIVEN.has(command)) return NPM_FORM;
    // `place` counts `npm` itself: what follows the command is `args` from `place`.
    if (INITIALIZES.has(command) && own.slice(place).some((arg) => !arg.startsWith('-'))) return NPM_FORM;
  }
  return undefined;
}

function namesCode(arg: string): boolean {
  const name = /^--([^=]+)/.exec(arg)?.[1]?.toLowerCase();
  return name !== undefined && CODE_OPTIONS.some(([option, shortest]) => name.length >= shortest && option.startsWith(name));
}
