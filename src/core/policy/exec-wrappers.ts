import { lookupProgram, programName } from './lookup-program.js';
import { readGetopt, withArity, type GetoptGrammar } from './read-getopt.js';

/** What an exec wrapper runs: a command (judged on its own), nothing, or a form refused under a glob. */
export type Unwrapped =
  | { readonly kind: 'runs'; readonly wrapper: string; readonly argv: readonly string[] }
  | { readonly kind: 'runs-nothing' }
  | { readonly kind: 'refused'; readonly form: string };

/** A program that runs the command in its arguments (`timeout 5 cmd …`). */
interface Wrapper {
  /** Its options, as its getopt_long call declares them; options end at the first operand (getopt's `+`). */
  readonly grammar: Omit<GetoptGrammar, 'stopAtOperand'>;
  /** Options refused under a glob, by letter or full long name, and what they are. */
  readonly refused?: ReadonlySet<string>;
  readonly form?: string;
  /** Operands the wrapper takes before the command (timeout's duration, flock's file). */
  readonly operands?: number;
  /** Given no command it starts a shell, which the floor cannot judge. */
  readonly shellWhenBare?: boolean;
  /** One of these options is needed, or the arguments are a shell string (watch without -x). */
  readonly requires?: readonly string[];
}

type WrapperJudge = (args: readonly string[]) => Unwrapped;

const refused = (form: string): Unwrapped => ({ kind: 'refused', form });
const HELP = ['help', 'version'];

// Each grammar is the wrapper's own option list (GNU coreutils, util-linux, procps, sudo, doas, busybox).
const WRAPPERS: readonly (readonly [readonly string[], Wrapper | WrapperJudge])[] = [
  [
    ['env'],
    {
      grammar: {
        short: { ...withArity('iv0', 'none'), ...withArity('uSC', 'required') },
        long: {
          ...withArity(['ignore-environment', 'debug', 'null', 'list-signal-handling', ...HELP], 'none'),
          ...withArity(['unset', 'split-string', 'chdir'], 'required'),
          ...withArity(['default-signal', 'ignore-signal', 'block-signal'], 'optional'),
        },
      },
      refused: new Set(['i', 'u', 'S', 'C', 'ignore-environment', 'unset', 'split-string', 'chdir']),
      form: 'env -i/-u/-S/-C (it clears the environment the host hardened, re-splits a string or changes directory)',
    },
  ],
  [
    ['xargs'],
    {
      grammar: {
        short: { ...withArity('0optrx', 'none'), ...withArity('aEILnPsd', 'required'), ...withArity('eil', 'optional') },
        long: {
          ...withArity(['null', 'open-tty', 'interactive', 'no-run-if-empty', 'verbose', 'exit', 'show-limits', ...HELP], 'none'),
          ...withArity(['arg-file', 'delimiter', 'max-args', 'max-chars', 'max-procs', 'process-slot-var'], 'required'),
          ...withArity(['eof', 'replace', 'max-lines'], 'optional'),
        },
      },
      refused: new Set(['a', 'arg-file', 'process-slot-var']),
      form: 'xargs -a/--arg-file/--process-slot-var (arguments from a file, a variable set)',
    },
  ],
  // nice's old `-N` and `-+N` adjustments read as digit flags.
  [['nice'], { grammar: { short: { ...withArity('+0123456789', 'none'), n: 'required' }, long: { ...withArity(HELP, 'none'), adjustment: 'required' } } }],
  [['nohup'], { grammar: { short: {}, long: withArity(HELP, 'none') } }],
  [
    ['timeout'],
    {
      grammar: {
        short: { ...withArity('fpv', 'none'), ...withArity('ks', 'required') },
        long: { ...withArity(['foreground', 'preserve-status', 'verbose', ...HELP], 'none'), ...withArity(['kill-after', 'signal'], 'required') },
      },
      operands: 1,
    },
  ],
  [['stdbuf'], { grammar: { short: withArity('ioe', 'required'), long: { ...withArity(['input', 'output', 'error'], 'required'), ...withArity(HELP, 'none') } } }],
  [
    ['ionice'],
    {
      grammar: {
        short: { ...withArity('thV', 'none'), ...withArity('cnpPu', 'required') },
        long: { ...withArity(['ignore', ...HELP], 'none'), ...withArity(['class', 'classdata', 'pid', 'pgid', 'uid'], 'required') },
      },
      refused: new Set(['p', 'P', 'u', 'pid', 'pgid', 'uid']),
      form: 'ionice -p/-P/-u (it acts on running processes, not a command)',
    },
  ],
  [['setsid'], { grammar: { short: withArity('cfwhV', 'none'), long: withArity(['ctty', 'fork', 'wait', ...HELP], 'none') } }],
  [
    ['chrt'],
    {
      grammar: {
        short: { ...withArity('abdefimoprRvhV', 'none'), ...withArity('DPT', 'required') },
        long: {
          ...withArity(['all-tasks', 'batch', 'deadline', 'ext', 'fifo', 'idle', 'max', 'other', 'pid', 'rr', 'reset-on-fork', 'verbose', ...HELP], 'none'),
          ...withArity(['sched-runtime', 'sched-period', 'sched-deadline'], 'required'),
        },
      },
      refused: new Set(['p', 'pid']),
      form: 'chrt -p (it acts on a running process, not a command)',
      operands: 1,
    },
  ],
  [
    ['taskset'],
    {
      grammar: { short: withArity('apchV', 'none'), long: withArity(['all-tasks', 'pid', 'cpu-list', ...HELP], 'none') },
      refused: new Set(['p', 'pid']),
      form: 'taskset -p (it acts on a running process, not a command)',
      operands: 1,
    },
  ],
  [
    ['flock'],
    {
      grammar: {
        short: { ...withArity('sxenoFuhV', 'none'), ...withArity('wEc', 'required') },
        long: {
          ...withArity(['shared', 'exclusive', 'unlock', 'nonblocking', 'nb', 'close', 'no-fork', 'verbose', ...HELP], 'none'),
          ...withArity(['timeout', 'wait', 'conflict-exit-code', 'command'], 'required'),
        },
      },
      refused: new Set(['c', 'command']),
      form: 'flock -c/--command (a shell string)',
      operands: 1,
    },
  ],
  [
    ['time'],
    {
      grammar: { short: { ...withArity('apqvV', 'none'), ...withArity('fo', 'required') }, long: { ...withArity(['append', 'portability', 'quiet', 'verbose', ...HELP], 'none'), ...withArity(['format', 'output'], 'required') } },
      refused: new Set(['o', 'output']),
      form: 'time -o/--output (it writes a file)',
    },
  ],
  [
    ['sudo'],
    {
      grammar: {
        short: { ...withArity('AbBEeHiKklNnPSsVv', 'none'), ...withArity('aCcDgpRrTtUu', 'required'), h: 'optional' },
        long: {
          ...withArity(
            ['askpass', 'background', 'bell', 'edit', 'set-home', 'login', 'remove-timestamp', 'reset-timestamp', 'list', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'validate', 'no-update', ...HELP],
            'none',
          ),
          ...withArity(['auth-type', 'close-from', 'login-class', 'chdir', 'group', 'host', 'prompt', 'chroot', 'role', 'type', 'command-timeout', 'other-user', 'user'], 'required'),
          'preserve-env': 'optional',
        },
      },
      refused: new Set(['A', 'askpass', 'E', 'preserve-env', 'e', 'edit', 'i', 'login', 's', 'shell', 'D', 'chdir', 'R', 'chroot']),
      form: 'sudo -A/-E/-e/-i/-s/-D/-R (a shell, an editor, an askpass program, the caller\'s environment, another directory or root)',
    },
  ],
  [['doas'], { grammar: { short: { ...withArity('Lns', 'none'), ...withArity('Cu', 'required') }, long: {} }, refused: new Set(['s']), form: 'doas -s (a shell)' }],
  [
    ['unshare'],
    {
      grammar: {
        short: { ...withArity('fmuinpUCTrchV', 'none'), ...withArity('RwSGl', 'required') },
        long: {
          ...withArity(['fork', 'map-root-user', 'map-current-user', 'map-auto', 'keep-caps', ...HELP], 'none'),
          ...withArity(['kill-child', 'mount', 'uts', 'ipc', 'net', 'pid', 'user', 'cgroup', 'time', 'mount-proc'], 'optional'),
          ...withArity(['map-user', 'map-group', 'map-users', 'map-groups', 'propagation', 'setgroups', 'root', 'wd', 'setuid', 'setgid', 'monotonic', 'boottime', 'load-interp'], 'required'),
        },
      },
      refused: new Set(['R', 'root', 'w', 'wd', 'l', 'load-interp']),
      form: 'unshare -R/-w/-l (another root or directory, an interpreter to load)',
      shellWhenBare: true,
    },
  ],
  [
    ['nsenter'],
    {
      grammar: {
        short: { ...withArity('aFZcehV', 'none'), ...withArity('tSGW', 'required'), ...withArity('muinpCUTrw', 'optional') },
        long: {
          ...withArity(['all', 'no-fork', 'follow-context', 'join-cgroup', 'preserve-credentials', 'keep-caps', 'user-parent', 'env', ...HELP], 'none'),
          ...withArity(['target', 'setuid', 'setgid', 'wdns'], 'required'),
          ...withArity(['mount', 'uts', 'ipc', 'net', 'pid', 'cgroup', 'user', 'time', 'root', 'wd'], 'optional'),
        },
      },
      refused: new Set(['r', 'root', 'w', 'wd', 'W', 'wdns', 'e', 'env']),
      form: 'nsenter -r/-w/-W/-e (another root, directory or environment)',
      shellWhenBare: true,
    },
  ],
  [
    ['watch'],
    {
      grammar: {
        short: { ...withArity('bcCeghptwxv', 'none'), n: 'required', d: 'optional' },
        long: { ...withArity(['beep', 'color', 'no-color', 'errexit', 'chgexit', 'precise', 'no-title', 'no-wrap', 'exec', 'no-rerun', ...HELP], 'none'), interval: 'required', differences: 'optional' },
      },
      requires: ['x', 'exec'],
      form: 'watch without -x/--exec (it runs its arguments through sh -c)',
    },
  ],
  [['busybox'], busybox],
  [['su'], su],
  [['chroot'], () => refused('chroot (the command is looked up and run inside the new root)')],
  [['script'], () => refused('script (it runs a shell string or a shell, and writes a typescript file)')],
];

/** busybox runs the applet its first argument names: that applet is the program. */
function busybox(args: readonly string[]): Unwrapped {
  const applet = args[0];
  if (applet === undefined) return { kind: 'runs-nothing' };
  return applet.startsWith('-') ? refused('busybox options (--install writes links)') : { kind: 'runs', wrapper: 'busybox', argv: args };
}

const SU_GRAMMAR: GetoptGrammar = {
  short: { ...withArity('flmpPhV', 'none'), ...withArity('cgGsw', 'required') },
  long: { ...withArity(['fast', 'login', 'preserve-environment', 'pty', ...HELP], 'none'), ...withArity(['command', 'session-command', 'group', 'supp-group', 'shell', 'whitelist-environment'], 'required') },
};
const SU_REFUSED = new Set(['c', 'command', 'session-command', 's', 'shell']);

/**
 * su runs the user's shell, never a command of its own: `-c` is a shell
 * string, `-s` names the program, and arguments after the user go to the
 * shell. Only `su [options] [-] [user]` is allowed; it runs nothing.
 */
function su(args: readonly string[]): Unwrapped {
  const items = readGetopt(args, SU_GRAMMAR);
  const form = 'su -c/-s or arguments for the shell';
  if (items === undefined) return refused(form);
  const operands: string[] = [];
  for (const item of items) {
    if ('operand' in item) operands.push(item.operand);
    else if (SU_REFUSED.has(item.option)) return refused(form);
  }
  if (operands[0] === '-') operands.shift();
  return operands.length > 1 ? refused(form) : { kind: 'runs-nothing' };
}

const EXEC_WRAPPERS: ReadonlyMap<string, Wrapper | WrapperJudge> = new Map(WRAPPERS.flatMap(([list, entry]) => list.map((name) => [name, entry] as const)));

/** Whether a word names an exec wrapper, as `unwrapCommand` looks argv[0] up. */
export function isExecWrapper(word: string): boolean {
  return lookupProgram(EXEC_WRAPPERS, word) !== undefined;
}

/** The wrappers, by name, for tests and documentation. */
export const WRAPPER_NAMES: readonly string[] = [...EXEC_WRAPPERS.keys()];

/**
 * What an exec wrapper in argv[0] runs, read with its own option grammar;
 * undefined when argv[0] is no wrapper. A wrapper that cannot be read with
 * confidence, or whose command would start with an option or an
 * environment assignment, is refused. So is a wrapped git: the host hardens
 * git's repository configuration only when git is the program it starts.
 */
export function unwrapCommand(argv: readonly string[]): Unwrapped | undefined {
  const found = lookupProgram(EXEC_WRAPPERS, argv[0] ?? '');
  if (found === undefined) return undefined;
  const args = argv.slice(1);
  const unwrapped = typeof found.entry === 'function' ? found.entry(args) : unwrap(found.name, args, found.entry);
  if (unwrapped.kind !== 'runs') return unwrapped;
  const program = unwrapped.argv[0] as string;
  if (program.startsWith('-')) return refused(`${found.name} with an option where its command should be`);
  if (program.includes('=')) return refused(`${found.name} with an environment assignment`);
  if (programName(program) === 'git') return refused('git behind a wrapper (the host hardens git only when it starts git itself)');
  return unwrapped;
}

/** Wrappers inside wrappers followed for a deny or ask (`nice timeout 5 nohup rm …`). */
const MAX_WRAPPERS = 8;

/**
 * The command and each command its exec wrappers run, outermost first,
 * through up to `MAX_WRAPPERS` wrappers: what a deny or ask reads, so
 * `timeout 5 rm x` is judged as `rm x` too.
 */
export function wrappedCommands(argv: readonly string[]): readonly (readonly string[])[] {
  const commands: (readonly string[])[] = [];
  let current: readonly string[] | undefined = argv;
  for (let depth = 0; current !== undefined && depth <= MAX_WRAPPERS; depth += 1) {
    commands.push(current);
    const unwrapped = unwrapCommand(current);
    current = unwrapped?.kind === 'runs' ? unwrapped.argv : undefined;
  }
  return commands;
}

function unwrap(name: string, args: readonly string[], wrapper: Wrapper): Unwrapped {
  const items = readGetopt(args, { ...wrapper.grammar, stopAtOperand: true });
  if (items === undefined) return refused(`${name} option that cannot be checked`);
  const options = items.flatMap((item) => ('option' in item ? [item.option] : []));
  const operands = items.flatMap((item) => ('operand' in item ? [item.operand] : []));
  const form = wrapper.form ?? `${name} option`;
  if (options.some((option) => wrapper.refused?.has(option) === true)) return refused(form);
  const command = operands.slice(wrapper.operands ?? 0);
  if (command.length === 0) return wrapper.shellWhenBare === true ? refused(`${name} with no command (it starts a shell)`) : { kind: 'runs-nothing' };
  // A bare `watch` runs nothing (the floor reads `npm run watch` as a command that may run `watch`); with a command it needs -x.
  if (wrapper.requires !== undefined && !options.some((option) => wrapper.requires?.includes(option) === true)) return refused(form);
  return { kind: 'runs', wrapper: name, argv: command };
}
