import { awkDanger } from './awk-danger.js';
import { gitDanger } from './git-danger.js';
import { npxAsNpm } from './npm-command-readings.js';
import { npmDanger } from './npm-danger.js';
import { endOfOptions, optionValues, type LongForm, type OptionRule } from './option-forms.js';
import { psqlDanger } from './psql-danger.js';
import { sedDanger } from './sed-danger.js';
import { sqliteDanger } from './sqlite-danger.js';

/** A program read with a grammar of its own: its arguments → the refused form, or undefined. */
export type ProgramJudge = (args: readonly string[]) => string | undefined;

const names = (...list: readonly string[]): LongForm[] => list.map((name) => ({ name }));

const FIND_FORMS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

const TAR: OptionRule = {
  form: 'tar --checkpoint-action/--to-command/-I/--use-compress-program/-F/--info-script/--new-volume-script/--rsh-command/--rmt-command',
  long: [{ name: 'checkpoint-action', min: 11 }, ...names('to-command', 'use-compress-program', 'info-script', 'new-volume-script', 'rsh-command', 'rmt-command')],
  short: 'IF',
  valued: 'bCfgHKLNTVX',
  // The old form: a first argument without a dash is a cluster whose values follow it (`tar xIf zstd a.tar`).
  check: (args) => args[0] !== undefined && !args[0].startsWith('-') && /[IF]/.test(args[0]),
};

const SSH_KEYS = new Set(['proxycommand', 'localcommand', 'permitlocalcommand', 'knownhostscommand', 'pkcs11provider', 'securitykeyprovider']);

/**
 * ssh, scp and sftp: `-o Key=value` with a key that runs a program or
 * loads a library, in any case, with `=` or blanks (`-oProxyCommand=x`,
 * `-o 'proxycommand x'`); a value whose key cannot be read is refused.
 */
function sshRule(program: string, refused: string, valued: string): OptionRule {
  return {
    form: `${program} -o ProxyCommand/LocalCommand/KnownHostsCommand/PKCS11Provider/SecurityKeyProvider, ${[...refused].map((letter) => `-${letter}`).join('/')}`,
    short: refused,
    valued,
    check: (args) =>
      optionValues(args, 'o', [], valued).some((value) => {
        const key = /^[\s"]*([A-Za-z0-9]+)/.exec(value)?.[1];
        return key === undefined || SSH_KEYS.has(key.toLowerCase());
      }),
  };
}

const CURL_VALUED = 'AbCdeEFHmPQrtTuUwxXyYz';
const CURL: OptionRule = {
  form: 'curl -o/-O/-K/-D/-c, --output/--output-dir/--remote-name/--config/--dump-header/--cookie-jar/--trace/--stderr/--libcurl/--etag-save/--hsts/--alt-svc/--engine/--unix-socket/--expand-*, -w %output',
  long: [
    ...names('output', 'output-dir', 'remote-name', 'remote-name-all', 'config', 'dump-header', 'trace', 'trace-ascii', 'stderr', 'libcurl', 'etag-save', 'hsts', 'alt-svc', 'engine', 'unix-socket', 'abstract-unix-socket'),
    // `--cookie` only sends cookies.
    { name: 'cookie-jar', min: 7 },
    // `--expand-output` takes its file name from a variable.
    { name: 'expand-', family: true },
  ],
  short: 'oOKDc',
  valued: CURL_VALUED,
  // `-w '%output{file}'` writes the rest of the format to a file; `-w @file` reads a format that may.
  check: (args) => optionValues(args, 'w', [{ name: 'write-out' }], CURL_VALUED).some((value) => /%output\{|^@/i.test(value)),
};

const WGET: OptionRule = {
  form: 'wget -O/-o/-a/-e/-P, --output-document/--output-file/--append-output/--execute/--directory-prefix/--config/--use-askpass/--warc-file/--save-cookies/--rejected-log/--hsts-file',
  long: [
    ...names('output-document', 'output-file', 'append-output', 'execute', 'directory-prefix', 'config', 'use-askpass', 'warc-file', 'warc-tempdir', 'save-cookies'),
    // `--reject` and `--hsts` are options of their own.
    { name: 'rejected-log', min: 7 },
    { name: 'hsts-file', min: 5 },
  ],
  short: 'OoaeP',
  valued: 'tTwQlARDXIUiBn',
};

const LESS: OptionRule = {
  form: 'less -k/-o/-O/--lesskey-*/--log-file/--LOG-FILE/+command',
  long: [{ name: 'lesskey', family: true }, ...names('log-file', 'LOG-FILE')],
  short: 'koO',
  valued: 'bhjpPtTxyz#',
  check: (args) => args.some((arg) => arg.startsWith('+')),
};

const VIM: OptionRule = {
  form: 'vim -c/-S/-s/-u/-U/-w/-W/-V/-i/-l/--cmd/--startuptime/--listen/--server/--remote*/+command',
  long: [...names('cmd', 'startuptime', 'listen', 'server'), { name: 'remote', family: true }],
  short: 'cSsuUwWVil',
  // `+` alone or `+N` only moves the cursor; `+cmd` and `+/pattern` run Ex commands.
  check: (args) => args.some((arg) => /^\+(?![0-9]*$)/.test(arg)),
};

const NODE: OptionRule = {
  form: 'node -e/-p/-r/-i, --eval/--print/--require/--import/--loader/--experimental-loader/--interactive/--inspect*/--env-file*/--redirect-warnings',
  long: [...names('eval', 'print', 'require', 'import', 'loader', 'experimental-loader', 'interactive', 'redirect-warnings'), { name: 'inspect', family: true }, { name: 'env-file', family: true }],
  short: 'epri',
  valued: 'C',
  // node reads `_` in an option's name as `-` (`--inspect_brk`).
  check: (args) => args.some((arg) => arg.startsWith('--') && (arg.split('=')[0] as string).includes('_')),
};

const SHELL: OptionRule = { form: 'shell -c', short: 'c' };

/** The POSIX-like shells, which run the commands of a `-c` string, of a script file or of what their input holds. */
export const SHELL_NAMES: readonly string[] = ['sh', 'bash', 'rbash', 'dash', 'ash', 'zsh', 'ksh', 'mksh', 'yash', 'csh', 'tcsh'];

/**
 * PowerShell reads `-Command`, `-EncodedCommand`, `-CommandWithArgs` and
 * `-File` by any prefix, case-insensitively, after `-`, `--` or `/`; a
 * plain argument is a script (pwsh) or a command (Windows PowerShell). Only
 * options naming none of them are allowed.
 */
function powershellRunsCode(args: readonly string[]): boolean {
  const runs = ['command', 'encodedcommand', 'commandwithargs', 'file', 'cwa', 'ec'];
  return args.some((arg) => {
    const name = /^(?:--?|\/)([A-Za-z]+)/.exec(arg)?.[1]?.toLowerCase();
    return name === undefined || runs.some((option) => option.startsWith(name));
  });
}
const POWERSHELL: OptionRule = { form: 'pwsh -Command/-EncodedCommand/-CommandWithArgs/-File or a script', check: powershellRunsCode };

const INTERPRETERS: readonly (readonly [readonly string[], OptionRule])[] = [
  [['python', 'pypy'], { form: 'python -c/-m', short: 'cm', valued: 'WX' }],
  [['perl'], { form: 'perl -e/-E/-M/-m/-d/-i', short: 'eEMmdi', valued: 'IF' }],
  [['ruby'], { form: 'ruby -e', short: 'e', valued: 'CEFIKr' }],
  [['node', 'nodejs'], NODE],
  [['bun'], { form: 'bun -e/-p/--eval/--print/exec/x', long: names('eval', 'print'), short: 'ep', actions: new Set(['exec', 'x']) }],
  [['deno'], { form: 'deno eval/--eval/--eval-file', long: names('eval', 'eval-file'), actions: new Set(['eval']) }],
  [
    ['php'],
    {
      form: 'php -r/-B/-R/-E/-F/-a/-d/-S/-z/-c',
      long: names('run', 'process-begin', 'process-code', 'process-file', 'process-end', 'interactive', 'define', 'server', 'zend-extension', 'php-ini'),
      short: 'rBREFadSzc',
      valued: 'ft',
    },
  ],
  [SHELL_NAMES, SHELL],
  [['fish'], { form: 'fish -c/-C/--command/--init-command', long: names('command', 'init-command'), short: 'cC' }],
  [['pwsh', 'powershell'], POWERSHELL],
  [['cmd'], { form: 'cmd (its command line is a shell)', always: true }],
  [['lua', 'luajit'], { form: 'lua -e/-j/-b', short: 'ejb' }],
  [['rscript', 'osascript'], { form: 'Rscript/osascript -e', short: 'e' }],
];

/**
 * gdb reads its long options after one dash or two, by any unambiguous
 * prefix (getopt_long_only): `-ex`, `-iex`, `-x`, `-ix`, `--eval-command`,
 * `--init-eval-command`, `--command`, `--init-command` run gdb commands
 * (`shell …` among them), and `-P`/`--python` a Python script. A prefix of
 * three letters or more is read as the option it starts; `-c` is `--core`.
 */
const GDB_RUNS = ['eval-command', 'init-eval-command', 'command', 'init-command', 'python'];
function gdbRunsCode(args: readonly string[]): boolean {
  return args.slice(0, endOfOptions(args)).some((arg) => {
    if (!arg.startsWith('-') || arg === '-') return false;
    const name = arg.replace(/^--?/, '').split('=')[0] as string;
    return ['ex', 'iex', 'x', 'ix', 'P'].includes(name) || (name.length >= 3 && GDB_RUNS.some((option) => option.startsWith(name)));
  });
}

const PROGRAMS: readonly (readonly [readonly string[], OptionRule | ProgramJudge])[] = [
  [['git'], (args) => gitDanger(['git', ...args])],
  [['npm'], npmDanger],
  // npx is `npm exec`, refused in every spelling: it runs the package it names, or with `-c` a shell string.
  [['npx'], (args) => npmDanger(npxAsNpm(['npx', ...args]).slice(1))],
  [['sed', 'gsed'], sedDanger],
  [['awk', 'gawk', 'mawk', 'nawk', 'original-awk'], awkDanger],
  [['find', 'gfind'], { form: 'find -exec/-ok/-delete/-fprint', check: (args) => args.some((arg) => FIND_FORMS.has(arg)) }],
  [['fd', 'fdfind'], { form: 'fd -x/-X/--exec/--exec-batch', long: names('exec', 'exec-batch'), short: 'xX', valued: 'dteE' }],
  // ripgrep reads long options only whole: `--pre` runs a program on each file, `--hostname-bin` one for a hyperlink's host.
  [['rg'], { form: 'rg --pre/--hostname-bin', check: (args) => args.some((arg) => /^--(?:pre|hostname-bin)(=|$)/.test(arg)) }],
  [['tar', 'gtar', 'bsdtar'], TAR],
  [['sort', 'gsort'], { form: 'sort --compress-program/-o/--output', long: names('compress-program', 'output'), short: 'o', valued: 'kStT' }],
  [
    ['rsync'],
    {
      form: 'rsync -e/-M, --rsh/--rsync-path/--remote-option/--config/--daemon/--log-file/--write-batch/--only-write-batch',
      long: names('rsh', 'rsync-path', 'remote-option', 'config', 'daemon', 'log-file', 'write-batch', 'only-write-batch'),
      short: 'eM',
      valued: 'BfT@',
    },
  ],
  [['ssh', 'slogin'], sshRule('ssh', 'FEI', 'bceilmopBDEFIJLOPQRSwW')],
  [['scp'], sshRule('scp', 'FSD', 'cDFiJloPSX')],
  [['sftp'], sshRule('sftp', 'bDFS', 'BbcDFiJloPRSsX')],
  [['zip'], { form: 'zip -T/-TT/--test/--unzip-command', long: names('test', 'unzip-command'), short: 'T' }],
  [['curl'], CURL],
  [['wget'], WGET],
  [['less', 'more'], LESS],
  [['vi', 'vim', 'view', 'ex', 'nvim', 'gvim', 'gview', 'vimdiff', 'rvim', 'rview', 'evim'], VIM],
  // `--eval` evaluates its value as a makefile's text: `$(shell …)` runs at once, whatever the makefile says.
  [['make', 'gmake'], { form: 'make --eval/-E', long: names('eval'), short: 'E', valued: 'CfIoW' }],
  [['gdb'], { form: 'gdb -ex/-iex/-x/-ix/-P, --eval-command/--init-eval-command/--command/--init-command/--python', short: 'xP', check: gdbRunsCode }],
  // capsh runs a shell with what follows `--` (a `-c` string among it), capsh itself again after `==`, and the shell `--shell` names.
  [['capsh'], { form: 'capsh --/==/--shell (a shell, or capsh again, runs the rest)', check: (args) => args.some((arg) => arg === '--' || arg === '==' || arg.startsWith('--shell')) }],
  // Each starts a shell, or runs the shell command it is given, in a terminal of its own.
  [['tmux', 'screen'], { form: 'tmux/screen (a shell or a shell command of their own)', always: true }],
  // bash's `enable -f` loads a shared library's builtins into the shell: code from a file.
  [['enable'], { form: 'enable -f (a shared library loaded into the shell)', short: 'f' }],
  [['sqlite3', 'sqlite'], sqliteDanger],
  [['psql'], psqlDanger],
  // m4 runs shell commands with `syscmd`/`esyscmd`, by a name it may build at run time (`indir`, `builtin`), and reads any file it names.
  [['m4', 'gm4'], () => 'm4 (syscmd/esyscmd by a name it may build, and any file it names)'],
  // Tcl runs programs with `exec`; every argument but none hands it code (a script file, `-c`, `-f`), and alone it reads only its input.
  [['tclsh', 'wish', 'expect', 'jimsh'], (args) => (args.length > 0 ? 'tclsh/wish/expect with a script file, -c or -f' : undefined)],
  ...INTERPRETERS,
];

/**
 * The exec-capable forms: for each program (by the name `lookupProgram`
 * reads from argv[0]), the argument forms that make it run a program or
 * code given in its arguments, load code, or write where it is told.
 * Applied to commands a glob admits; an exact `allowedCommands` entry runs
 * exactly what it says. Documented in docs/policy.md ("Exec-capable forms").
 */
export const EXEC_FORMS: ReadonlyMap<string, OptionRule | ProgramJudge> = new Map(PROGRAMS.flatMap(([list, entry]) => list.map((name) => [name, entry] as const)));

/**
 * Programs whose arguments `EXEC_FORMS` reads with the program's own
 * grammar, and that run no command their arguments name but through a form
 * it refuses: a sed or awk script, SQL, a find expression, a URL. The floor does
 * not read their arguments again as shell commands (`checkCommand`), where
 * `awk '{print $1}'` or `sed '/[;]/d'` would read as code the shell works out.
 */
export const RUNS_ONLY_REFUSED_FORMS: ReadonlyMap<string, true> = new Map(
  ['sqlite3', 'sqlite', 'psql', 'sed', 'gsed', 'awk', 'gawk', 'mawk', 'nawk', 'original-awk', 'find', 'gfind', 'fd', 'fdfind', 'rg', 'tar', 'gtar', 'bsdtar', 'sort', 'gsort', 'zip', 'curl', 'wget', 'less', 'more'].map(
    (name) => [name, true] as const,
  ),
);
