import { describe, expect, it } from 'vitest';
import { commandReadings } from './command-readings.js';
import { CommandLines, compileCommandPattern, matchCommandPattern } from './match-command-pattern.js';

const reads = (argv: readonly string[], command: readonly string[]): boolean => commandReadings(argv).forms.some((reading) => reading.join('\0') === command.join('\0'));
const denied = (argv: readonly string[], rule: string): boolean => matchCommandPattern(compileCommandPattern(rule, 'deny'), new CommandLines(argv), 'deny');

describe('commandReadings', () => {
  it('reads the command a program toolgate does not know may run, from each argument that is no option', () => {
    expect(reads(['setarch', 'x86_64', 'rm', 'x'], ['rm', 'x'])).toBe(true);
    expect(reads(['strace', '-f', '-o', '/dev/null', 'rm', 'x'], ['rm', 'x'])).toBe(true);
    // By the program's base name, and from the value of an `--option=value`.
    expect(reads(['prlimit', '/usr/bin/rm', 'x'], ['rm', 'x'])).toBe(true);
    expect(reads(['start-stop-daemon', '--start', '--exec=/usr/bin/rm', '--', 'x'], ['rm', '--', 'x'])).toBe(true);
    // git without its global options, npm's command as npm reads it, and npx as npm exec.
    expect(reads(['fakeroot', 'git', '-C', '.', 'push'], ['git', 'push'])).toBe(true);
    expect(reads(['setpriv', 'npm', 'x', 'cowsay'], ['npm', 'exec', 'cowsay'])).toBe(true);
    expect(reads(['npx', '-c', 'id'], ['npm', 'exec', '-c', 'id'])).toBe(true);
  });

  it('reads each command of a shell string an argument holds from its first word, as a shell reads it, and through known wrappers', () => {
    expect(reads(['capsh', '--', '-c', 'true; r\\m "x"'], ['rm', 'x'])).toBe(true);
    expect(reads(['capsh', '--', '-c', 'a && b | c $(nice rm x)'], ['rm', 'x'])).toBe(true);
    expect(reads(['tmux', 'new', "sh -c 'timeout 5 rm x'"], ['sh', '-c', 'timeout 5 rm x'])).toBe(true);
    expect(denied(['tmux', 'new', "sh -c 'timeout 5 rm x'"], 'rm:*')).toBe(true);
    // Inside a string a later word starts no command: `echo rm` is echo.
    expect(denied(['capsh', '--', '-c', 'echo rm x'], 'rm:*')).toBe(false);
  });

  it('reads nothing more after a program that runs no argument: its arguments are data', () => {
    expect(denied(['echo', 'git', 'push'], 'git push:*')).toBe(false);
    expect(denied(['git', 'commit', '-m', 'rm the old file'], 'rm:*')).toBe(false);
    expect(denied(['grep', '-r', 'curl x', 'src'], 'curl:*')).toBe(false);
    // Through a wrapper toolgate knows, the command it runs is what counts.
    expect(denied(['nice', 'echo', 'rm', 'x'], 'rm:*')).toBe(false);
    expect(denied(['nice', 'rm', 'x'], 'rm:*')).toBe(true);
  });

  it('reads a long argv whole, and cuts one whose readings would grow past their bound, which a deny or ask then covers', () => {
    const long = new CommandLines(['x', ...Array.from({ length: 20 }, () => 'y'), `echo ${'z '.repeat(30_000)}`]);
    expect(long.cut).toBe(false);
    expect(long.all.length).toBeGreaterThan(40);
    // A string's program toolgate does not know, with 30,000 arguments: each starts a reading, as in the argv.
    expect(new CommandLines(['x', 'z '.repeat(30_000)]).cut).toBe(true);
    // 255 arguments each holding a shell string of 60 commands: the strings are read, once each, until the bound.
    const strings = new CommandLines(['x', ...Array.from({ length: 255 }, () => ';a b'.repeat(60))]);
    expect(strings.cut).toBe(true);
    expect(strings.all.length).toBeGreaterThan(40);
    // 16,000 arguments of a program toolgate does not know: each starts a reading to the end, 128 million words in all.
    const swamped = ['setarch', ...Array.from({ length: 16_000 }, (_, index) => `a${String(index % 10)}`)];
    const readings = commandReadings(swamped);
    expect(readings.cut).toBe(true);
    expect(readings.forms.reduce((sum, form) => sum + form.length, 0)).toBeLessThan(1_000_000);
    expect(denied(swamped, 'rm:*')).toBe(true);
    expect(matchCommandPattern(compileCommandPattern('rm:*', 'allow'), new CommandLines(swamped), 'allow')).toBe(false);
  });

  it("cuts only where a string's program is a word the shell expands, never at a variable among its arguments", () => {
    const cut = (argv: readonly string[]): boolean => new CommandLines(argv).cut;
    // The program a shell works out: no reading names it.
    expect(cut(['bash', '-c', 'a=touch; $a x'])).toBe(true);
    expect(cut(['bash', '-c', 'exec $a x'])).toBe(true);
    // `exec -a name` gives the program a name: the word after the name is the program.
    for (const script of ['exec -a n $a x', 'exec -ca n $a x', 'exec -c -a n $a x', 'exec -a n -l $a x']) expect(cut(['bash', '-c', script]), script).toBe(true);
    expect(cut(['bash', '-c', 'exec -a $n touch x'])).toBe(false);
    // A function's or a compound coproc's name runs nothing: the compound command's first word is the program.
    for (const script of ['coproc n { $a x; }', 'function f { $a x; }; f']) expect(cut(['bash', '-c', script]), script).toBe(true);
    // `coproc n $a x` runs the program `n`, which toolgate does not know: `$a` may be the command it runs.
    expect(cut(['bash', '-c', 'coproc n $a x'])).toBe(true);
    for (const script of ['coproc $a', 'coproc $a x', 'prlimit $a x', 'prlimit --cmd=$a x', 'exec timeout 5 $a x']) expect(cut(['bash', '-c', script]), script).toBe(true);
    // An argument with no blank is still a command line where the shell splits what it expands.
    for (const script of ['perl${IFS}-e${IFS}1', 'perl$IFS-e$IFS1', '{perl,-e,1}']) expect(cut(['capsh', '--', '-c', script]), script).toBe(true);
    expect(cut(['eslint', 'src/**/*.ts', 'a.{ts}'])).toBe(false);
    // After a program that runs no argument, or a builtin that runs none, a variable is data.
    for (const script of ['echo $a x', 'cd $d && ls', 'export PATH=$PATH:x', '[[ -n $x ]] && echo y', 'exec -a $n touch x']) expect(cut(['bash', '-c', script]), script).toBe(false);
    expect(cut(['bash', '-c', 'x=1 2>/dev/null $a x'])).toBe(true);
    // A variable or a pattern after a shell prefix, where no program stands: data (SQL's `select` is the shell's too).
    expect(cut(['bash', '-c', 'for f in *.ts; do echo $f; done'])).toBe(false);
    expect(cut(['psql', '-c', 'select * from t where a = $1'])).toBe(false);
    expect(cut(['bash', '-c', 'if [ -n "$x" ]; then echo $x; fi'])).toBe(false);
    // The command after the prefix is still read, and denied.
    expect(denied(['bash', '-c', 'for f in a; do touch $f; done'], 'touch:*')).toBe(true);
    expect(denied(['bash', '-c', 'x=$HOME touch a'], 'touch:*')).toBe(true);
  });

  it("reads a string's command from each argument of a program toolgate does not know, as the argv", () => {
    expect(denied(['capsh', '-c', 'setarch x86_64 touch x'], 'touch:*')).toBe(true);
    expect(denied(['capsh', '--', '-c', 'true; prlimit touch x'], 'touch:*')).toBe(true);
    expect(denied(['capsh', '--', '-c', 'exec fakeroot mkdir y'], 'mkdir:*')).toBe(true);
    expect(denied(['capsh', '--', '-c', 'find . -exec touch {} +'], 'touch:*')).toBe(true);
    expect(denied(['capsh', '--', '-c', 'hash -p /usr/bin/touch t; t x'], 'touch:*')).toBe(true);
    expect(denied(['capsh', '--', '-c', 'echo touch x; cat notes.md'], 'touch:*')).toBe(false);
  });

  it('cuts where the string hands code to a shell, a source or an alias, or names its program by a command substitution', () => {
    const cut = (script: string): boolean => new CommandLines(['capsh', '--', '-c', script]).cut;
    for (const script of ['echo touch x | sh', 'echo touch x | bash -s', 'bash <(echo touch x)', 'source <(echo touch x)', '. <(echo touch x)', "alias t='touch x'\nt"]) {
      expect(cut(script), script).toBe(true);
    }
    for (const script of ['$(echo touch) x', '`echo touch` x', 't$(echo ouch) x', 'x=1 `echo touch` y', 'true; $(echo touch) x']) expect(cut(script), script).toBe(true);
    // A shell given a string to run is read through it; a substitution among a command's arguments is its own command.
    for (const script of ["bash -c 'echo hi'", 'x=$(date); echo $x', 'echo "$(date)"', 'cat <(ls)']) expect(cut(script), script).toBe(false);
  });

  it('reads at most 2,048 commands of an argv, and a deny or ask covers the ones past them', () => {
    const strings = Array.from({ length: 7 }, (_, k) => Array.from({ length: 600 }, (_, i) => `exec x${k}_${i} a b c d`).join(';'));
    const readings = commandReadings(['setarch', 'x86_64', ...strings]);
    expect(readings.forms.length).toBeLessThanOrEqual(2048);
    expect(readings.cut).toBe(true);
    expect(commandReadings(['setarch', 'x86_64', strings[0]?.slice(0, 200) ?? '']).cut).toBe(false);
  });
});
