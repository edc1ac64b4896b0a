import { npmCommandsAt } from './npm-command-readings.js';

/** What a glob-admitted npm command is refused for: the form, never its value. */
const NPM_FORM = 'npm exec/x, explore, edit, config edit, init/create <initializer>, --script-shell/--node-options/--editor/--shell/--git/--node-gyp/--init-module/--userconfig/--globalconfig';

/**
 * npm's options that name a program or code it runs, or a configuration
 * file that may name one: each by any abbreviation npm expands, down to the
 * length given (short enough to take every one npm takes, long enough to
 * leave `--global`, `--user…` and `--git-tag-version` alone).
 */
const CODE_OPTIONS: readonly (readonly [string, number])[] = [
  ['script-shell', 4],
  ['node-options', 6],
  // `npm edit` and `npm config edit` split it on blanks and start it: `--editor=sh -c …`.
  ['editor', 3],
  ['shell', 5],
  ['git', 3],
  ['node-gyp', 6],
  ['init-module', 6],
  ['userconfig', 5],
  ['globalconfig', 7],
];

/** The commands that run a program or package the arguments name: `exec` (any spelling npm reads as it), `explore`'s shell, `edit`'s editor. */
const RUNS_WHAT_IT_IS_GIVEN = new Set(['exec', 'explore', 'edit']);

/** `init` and `create` run a package initializer (`npm init vite` is `npm exec create-vite`) when they are given one. */
const INITIALIZES = new Set(['init']);

/**
 * npm read as npm reads its command line (`npmCommandsAt`): `exec` under
 * every spelling (`x`, `exe`, after options), `explore` (a shell string
 * after `--`, or `--shell=…`, runs in a package's folder), `edit` and
 * `config edit` (they start the editor), `init` or `create` with an
 * initializer, and before `--` the options that name a program or code
 * npm runs (`CODE_OPTIONS`: a program to run scripts with, a `--require`
 * or `--import` for every node it starts, an editor, a git, a node-gyp,
 * an init module) or a configuration file that may set one. Under a glob such as `npm *` each ran what the
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
    const after = own.slice(place).filter((arg) => !arg.startsWith('-'));
    if (INITIALIZES.has(command) && after.length > 0) return NPM_FORM;
    // `npm config edit` (`e`) starts the editor on the configuration file.
    if (command === 'config' && (after[0] === 'edit' || after[0] === 'e')) return NPM_FORM;
  }
  return undefined;
}

function namesCode(arg: string): boolean {
  const name = /^--([^=]+)/.exec(arg)?.[1]?.toLowerCase();
  return name !== undefined && CODE_OPTIONS.some(([option, shortest]) => name.length >= shortest && option.startsWith(name));
}
