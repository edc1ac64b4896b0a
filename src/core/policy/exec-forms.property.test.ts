import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { checkCommand } from './check-command.js';
import { EXEC_FORMS } from './exec-forms.js';
import { WRAPPER_NAMES } from './exec-wrappers.js';
import type { OptionRule } from './option-forms.js';

/** Programs the generic option reader judges, with their rules (git, sed and awk have grammars of their own). */
const RULES: readonly (readonly [string, OptionRule])[] = [...EXEC_FORMS].flatMap(([name, entry]) => (typeof entry === 'function' ? [] : [[name, entry] as const]));
// PowerShell takes any plain argument as a script or a command, cmd any command line, find's primaries are short words
// (`-ok`) a flag cluster could spell, and gdb reads a word after one dash as a long option's prefix (`-com`).
const NO_HARMLESS_ARGV = new Set(['pwsh', 'powershell', 'cmd', 'find', 'gfind', 'gdb']);

/** Harmless ways to call each wrapper in front of a command; the wrappers that run no command of their own are listed apart. */
const WRAPPING: Readonly<Record<string, readonly (readonly string[])[]>> = {
  env: [['env'], ['env', '--'], ['env', '-v', '-0']],
  xargs: [['xargs'], ['xargs', '-0'], ['xargs', '-n', '1', '-P4']],
  nice: [['nice'], ['nice', '-n', '5'], ['nice', '-5'], ['nice', '-n5']],
  nohup: [['nohup']],
  timeout: [['timeout', '5'], ['timeout', '-s', 'KILL', '5'], ['timeout', '--signal=TERM', '-k1', '5']],
  stdbuf: [['stdbuf', '-oL'], ['stdbuf', '-o', 'L', '-eL']],
  ionice: [['ionice', '-c', '3'], ['ionice', '-c3', '-n7']],
  setsid: [['setsid'], ['setsid', '-w']],
  chrt: [['chrt', '-b', '0'], ['chrt', '-i', '0']],
  taskset: [['taskset', '1'], ['taskset', '-c', '0']],
  flock: [['flock', 'lock'], ['flock', '-n', 'lock'], ['flock', '-w', '5', 'lock']],
  time: [['time'], ['time', '-p']],
  sudo: [['sudo'], ['sudo', '-n', '-u', 'me']],
  doas: [['doas'], ['doas', '-u', 'me']],
  unshare: [['unshare', '-r'], ['unshare', '-rn', '--fork']],
  nsenter: [['nsenter', '-t', '1', '-m']],
  watch: [['watch', '-x'], ['watch', '-n', '1', '-x']],
  busybox: [['busybox']],
};
const RUNS_NO_COMMAND = ['su', 'chroot', 'script'];

const LETTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];
const word = fc.constantFrom('file.txt', 'src', 'out', '42', 'a.tar', 'https://example.com', 'HEAD');
const value = fc.constantFrom('x', 'sh', '/tmp/out', 'a=b', 'sh -c id');
const wrappers = fc.array(fc.constantFrom(...Object.values(WRAPPING).flat()), { maxLength: 3 }).map((list) => list.flat());
/** A program's name as the user may have allowed it: as the table spells it, or with a version suffix (`python3.12`, `lua5.4`). */
const programOf = (name: string) => fc.constantFrom('', '3', '3.12', '5.36').map((suffix) => `${name}${suffix}`);
/** Short flags the rule neither refuses nor reads a value after. */
const flagsOf = (rule: OptionRule) => fc.array(fc.constantFrom(...LETTERS.filter((letter) => !(rule.short ?? '').includes(letter) && !(rule.valued ?? '').includes(letter))), { maxLength: 3 }).map((list) => list.join(''));

/** One refused form of the rule, in a random spelling getopt accepts, as the argument elements it takes. */
function refusedForm(rule: OptionRule): fc.Arbitrary<readonly string[]> {
  const forms: fc.Arbitrary<readonly string[]>[] = [];
  for (const long of rule.long ?? []) {
    const name = long.family === true
      ? fc.constantFrom('', '-x', 'x').map((suffix) => `${long.name}${suffix}`)
      : fc.integer({ min: long.min ?? 1, max: long.name.length }).map((length) => long.name.slice(0, length));
    forms.push(fc.tuple(name, value, fc.constantFrom('alone', 'equals', 'separate')).map(([option, given, how]) => (how === 'alone' ? [`--${option}`] : how === 'equals' ? [`--${option}=${given}`] : [`--${option}`, given])));
  }
  for (const letter of rule.short ?? '') {
    forms.push(
      fc.tuple(flagsOf(rule), value, fc.constantFrom('alone', 'attached', 'separate')).map(([flags, given, how]) => (how === 'alone' ? [`-${flags}${letter}`] : how === 'attached' ? [`-${flags}${letter}${given}`] : [`-${flags}${letter}`, given])),
    );
  }
  return fc.oneof(...forms);
}

const checkable = RULES.filter(([, rule]) => (rule.long?.length ?? 0) + (rule.short?.length ?? 0) > 0);

describe('property: no argv a glob admits holds a form from the table', () => {
  test('the wrappers listed here are the wrappers of the table', () => {
    expect([...Object.keys(WRAPPING), ...RUNS_NO_COMMAND].sort()).toEqual([...WRAPPER_NAMES].sort());
  });

  test('an inserted option form is refused, however spelled and wrapped', () => {
    const generated = fc.constantFrom(...checkable).chain(([name, rule]) =>
      fc.record({
        program: programOf(name),
        before: fc.array(word, { maxLength: 2 }),
        form: refusedForm(rule),
        after: fc.array(word, { maxLength: 2 }),
        wrap: wrappers,
      }),
    );
    fc.assert(
      fc.property(generated, ({ program, before, form, after, wrap }) => {
        const inner = [program, ...before, ...form, ...after];
        const allowlist = { commands: [], globs: [[program, '*'], ...WRAPPER_NAMES.map((name) => [name, '*'])] };
        expect(checkCommand([...wrap, ...inner], allowlist).ok).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  test('an action or an always-refused program is refused whatever follows', () => {
    const generated = fc.constantFrom(...RULES.filter(([, rule]) => rule.actions !== undefined || rule.always === true)).chain(([name, rule]) =>
      fc.record({ program: programOf(name), first: rule.actions === undefined ? word : fc.constantFrom(...rule.actions), rest: fc.array(word, { maxLength: 3 }), wrap: wrappers }),
    );
    fc.assert(
      fc.property(generated, ({ program, first, rest, wrap }) => {
        const allowlist = { commands: [], globs: [[program, '*'], ...WRAPPER_NAMES.map((name) => [name, '*'])] };
        expect(checkCommand([...wrap, program, first, ...rest], allowlist).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  test('the same programs with harmless flags and arguments are admitted (the property is not vacuous)', () => {
    const generated = fc.constantFrom(...RULES.filter(([name, rule]) => rule.always !== true && !NO_HARMLESS_ARGV.has(name))).chain(([name, rule]) =>
      fc.record({
        program: programOf(name),
        args: fc.array(fc.oneof(word.filter((plain) => rule.actions?.has(plain) !== true), flagsOf(rule).filter((flags) => flags !== '').map((flags) => `-${flags}`)), { maxLength: 4 }),
        wrap: wrappers,
      }),
    );
    fc.assert(
      fc.property(generated, ({ program, args, wrap }) => {
        const allowlist = { commands: [], globs: [[program, '*'], ...WRAPPER_NAMES.map((name) => [name, '*'])] };
        expect(checkCommand([...wrap, program, ...args], allowlist)).toEqual({ ok: true, via: 'glob' });
      }),
      { numRuns: 1000 },
    );
  });
});

describe('property: awk programs', () => {
  const harmless = ['{ print $1 }', '/a|b/ { n++ }', '$3 > 100 { print $2 }', '{ print ($1 > 5) }', '{ s = "x|y>z system" }', 'NR % 2 == 0', '{ x = $1 / 2 }', 'END { printf "%d", n }', '!/^#/', '{ if ($1 > 0) print $1 }'];
  const payloads = [
    '{ system("id") }',
    '{ print | "sh" }',
    '{ print > "/tmp/x" }',
    '{ printf "x" >> "f" }',
    '{ "id" | getline x }',
    '{ getline l < "/etc/passwd" }',
    '@load "x"',
    '{ print $1 |& "sh" }',
    '{ f = "system"; @f("id") }',
    '{ if (1) print $1, $2 > "f" }',
  ];
  const allowlist = { commands: [], globs: [['awk', '*'], ['gawk', '*'], ['mawk', '*'], ...WRAPPER_NAMES.map((name) => [name, '*'])] };
  const programs = (withPayload: boolean) =>
    fc.tuple(fc.array(fc.constantFrom(...harmless), { maxLength: 4 }), withPayload ? fc.constantFrom(...payloads).map((payload) => [payload]) : fc.constant([]), fc.nat()).map(([parts, payload, at]) => {
      const all = [...parts];
      all.splice(at % (parts.length + 1), 0, ...payload);
      return all.join(' ; ');
    });
  const spelled = (program: string) => fc.constantFrom(['awk', program], ['gawk', '-e', program], ['mawk', '-F,', '--', program], ['gawk', `--source=${program}`], ['awk', '-v', 'x=1', program, 'in.txt']);

  test('a program holding a payload is refused wherever the payload sits', () => {
    fc.assert(
      fc.property(programs(true).chain(spelled), wrappers, (argv, wrap) => {
        expect(checkCommand([...wrap, ...argv], allowlist).ok).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  test('a program of harmless parts is admitted', () => {
    fc.assert(
      fc.property(programs(false).chain(spelled), wrappers, (argv, wrap) => {
        expect(checkCommand([...wrap, ...argv], allowlist)).toEqual({ ok: true, via: 'glob' });
      }),
      { numRuns: 500 },
    );
  });
});
