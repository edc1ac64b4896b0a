/*
 * npm works out the command it runs itself: through aliases (`x` is `exec`,
 * `rm` is `uninstall`), any unique prefix of a command or an alias (`exe`),
 * camelCase (`runScript`), and wherever its own options put it (`npm
 * --loglevel silent exec`). A deny of `npm exec` read against the words as
 * spelled let `npm x -c 'touch pwned'` run, allowed by `Bash(npm:*)`. These
 * are npm 11's tables (`lib/utils/cmd-list.js`).
 */

const NPM_COMMANDS: readonly string[] = [
  'access', 'adduser', 'approve-scripts', 'audit', 'bugs', 'cache', 'ci', 'completion', 'config', 'dedupe', 'deny-scripts', 'deprecate', 'diff',
  'dist-tag', 'docs', 'doctor', 'edit', 'exec', 'explain', 'explore', 'find-dupes', 'fund', 'get', 'help', 'help-search', 'init', 'install',
  'install-ci-test', 'install-scripts', 'install-test', 'link', 'll', 'login', 'logout', 'ls', 'org', 'outdated', 'owner', 'pack', 'ping', 'pkg',
  'prefix', 'profile', 'prune', 'publish', 'query', 'rebuild', 'repo', 'restart', 'root', 'run', 'sbom', 'search', 'set', 'shrinkwrap', 'stage',
  'star', 'stars', 'start', 'stop', 'team', 'test', 'token', 'trust', 'undeprecate', 'uninstall', 'unpublish', 'unstar', 'update', 'version', 'view',
  'whoami',
];

const NPM_ALIASES: Readonly<Record<string, string>> = {
  author: 'owner', home: 'docs', issues: 'bugs', info: 'view', show: 'view', find: 'search', add: 'install', unlink: 'uninstall', remove: 'uninstall',
  rm: 'uninstall', r: 'uninstall', un: 'uninstall', rb: 'rebuild', list: 'ls', ln: 'link', create: 'init', i: 'install', it: 'install-test',
  cit: 'install-ci-test', u: 'update', up: 'update', c: 'config', s: 'search', se: 'search', tst: 'test', t: 'test', ddp: 'dedupe', v: 'view',
  'run-script': 'run', 'clean-install': 'ci', 'clean-install-test': 'install-ci-test', x: 'exec', why: 'explain', la: 'll', verison: 'version',
  ic: 'ci', innit: 'init', in: 'install', ins: 'install', inst: 'install', insta: 'install', instal: 'install', isnt: 'install', isnta: 'install',
  isntal: 'install', isntall: 'install', 'install-clean': 'ci', 'isntall-clean': 'ci', hlep: 'help', 'dist-tags': 'dist-tag', upgrade: 'update',
  udpate: 'update', rum: 'run', sit: 'install-ci-test', urn: 'run', ogr: 'org', 'add-user': 'adduser',
};

const COMMANDS: ReadonlySet<string> = new Set(NPM_COMMANDS);
const ALIASES: ReadonlyMap<string, string> = new Map(Object.entries(NPM_ALIASES));
const NAMES: readonly string[] = [...NPM_COMMANDS, ...ALIASES.keys()];

/** Each command's spellings a rule may be written with: its name and its aliases (`exec`, `x`). */
const SPELLINGS: ReadonlyMap<string, readonly string[]> = new Map(
  NPM_COMMANDS.map((command) => [command, [command, ...[...ALIASES].filter(([, target]) => target === command).map(([alias]) => alias)]]),
);

/** The command npm runs for a word it reads as one (npm's `deref`): exact, an alias, camelCase, or a unique prefix of either; else undefined. */
export function npmCommand(word: string): string | undefined {
  const spelled = /[A-Z]/.test(word) ? word.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`) : word;
  if (spelled === '') return undefined;
  if (COMMANDS.has(spelled)) return spelled;
  const alias = ALIASES.get(spelled);
  if (alias !== undefined) return alias;
  const named = NAMES.filter((name) => name.startsWith(spelled));
  if (named.length !== 1) return undefined;
  const name = named[0] as string;
  return ALIASES.get(name) ?? name;
}

/**
 * An npm argv as each command npm may run reads it, for a deny or ask: the
 * program as `npm`, its options before the command left out, and the
 * command under its name and each alias (`npm x -c …` reads as `npm exec -c
 * …` and `npm x -c …`). Where the word after an option may be that
 * option's value (`--prefix s exec`), both it and the next are read as the
 * command, which can only widen what a deny or ask sees. Empty for any
 * other program, and for an argv whose command npm would not know.
 */
export function npmCommandReadings(argv: readonly string[]): (readonly string[])[] {
  return npmCommandsAt(argv).flatMap(({ place, command }) => (SPELLINGS.get(command) ?? [command]).map((spelling) => ['npm', spelling, ...argv.slice(place + 1)]));
}

/**
 * Each command npm may run for an argv (`argv[0]` the program), with its
 * place: the word at each place the command may stand (`commandPlaces`)
 * that npm knows (`npmCommand`). A value an option takes is read as a
 * command too, where npm would know it as one: whoever asks whether npm
 * runs a package, or matches a deny, reads it both ways.
 */
export function npmCommandsAt(argv: readonly string[]): { readonly place: number; readonly command: string }[] {
  return commandPlaces(argv).flatMap((place) => {
    const command = npmCommand(argv[place] as string);
    return command === undefined ? [] : [{ place, command }];
  });
}

/** Where npm's command may stand: each word up to the first that follows no option awaiting a value (`--x` without `=`), or the word after `--`. */
function commandPlaces(argv: readonly string[]): number[] {
  const places: number[] = [];
  let valueNext = false;
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === '--') {
      if (index + 1 < argv.length) places.push(index + 1);
      break;
    }
    if (arg.startsWith('-') && arg !== '-') {
      valueNext = !arg.includes('=');
      continue;
    }
    places.push(index);
    if (!valueNext) break;
    valueNext = false;
  }
  return places;
}

/** npx is `npm exec` under another name: npm's own npx starts `npm exec` with the same arguments. */
export function npxAsNpm(argv: readonly string[]): readonly string[] {
  return ['npm', 'exec', ...argv.slice(1)];
}
