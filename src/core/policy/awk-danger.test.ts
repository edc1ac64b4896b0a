import { describe, expect, test } from 'vitest';
import { checkCommand } from './check-command.js';
import { findDangerousArgument } from './find-dangerous-argument.js';

const anyAwk = { commands: [], globs: [['awk', '*'], ['gawk', '*'], ['mawk', '*'], ['nawk', '*'], ['busybox', '*']] };
const refused = (argv: readonly string[]): boolean => findDangerousArgument(argv) !== undefined;

describe('findDangerousArgument: awk programs that run, write or load', () => {
  // Each ran `id`, wrote or read a file, or loaded code with only `['awk', '*']` allowed.
  test.each([
    ['system()', ['awk', 'BEGIN{system("id")}']],
    ['system with a blank before (', ['awk', 'BEGIN { system ("id") }']],
    ['system in a condition', ['awk', '$1 == "x" { system($2) }', 'f']],
    ['system after a number', ['awk', 'BEGIN{x=1system("id")}']],
    ['system in a namespace', ['gawk', 'BEGIN{awk::system("id")}']],
    ['print | cmd', ['awk', '{ print | "sh" }']],
    ['print to a pipe after a string', ['awk', '{ print "id" | "sh" }']],
    ['cmd | getline', ['awk', 'BEGIN { "id" | getline x; print x }']],
    ['|& coprocess', ['gawk', 'BEGIN { print "x" |& "sh" }']],
    ['print > file', ['awk', '{ print > "/tmp/out" }']],
    ['print expr > file', ['awk', '{ print $1, $2 > "/tmp/out" }']],
    ['print >> file', ['awk', '{ print $0 >> "out.txt" }']],
    ['printf > file', ['awk', '{ printf "%s\\n", $1 > "out.txt" }']],
    ['printf(…) > file', ['awk', '{ printf("%s", $1) > "out.txt" }']],
    ['print (a) > file', ['awk', '{ print ($1) > "out.txt" }']],
    ['print > after if (…)', ['awk', '{ if ($1 > 0) print $1 > "out.txt" }']],
    ['print > a comparison-looking redirection', ['awk', '{ print $1 > 5 }']],
    ['getline < file', ['awk', 'BEGIN { while ((getline line < "/etc/shadow") > 0) print line }']],
    ['getline < network', ['gawk', 'BEGIN { getline < "/inet/tcp/0/example.com/80" }']],
    ['@load', ['gawk', '@load "filefuncs"; BEGIN { }']],
    ['@include', ['gawk', '@include "x.awk"']],
    ['indirect call of system', ['gawk', 'BEGIN { f = "system"; @f("id") }']],
    ['a regex after a control condition hiding a quote', ['gawk', '{ if (1) /a"/ ; system("id") ; x = "/" }']],
    ['length / ambiguous between awks', ['awk', '{ x = length /"/ ; system("id") ; y = "/" }']],
    ['a comment', ['awk', '{ print } # note']],
    ['a backslash outside a literal', ['awk', 'BEGIN { x = 1 \\ 2 }']],
    ['an unterminated string', ['awk', 'BEGIN { x = "a }']],
    ['an unterminated regex', ['awk', '/abc { print }']],
    ['a bracket holding a slash', ['awk', '/[/]"/ { system("id") }']],
    ['a bracket holding a quote', ['awk', '/["]/ { print }']],
    ['a stray )', ['awk', 'BEGIN { x = 1) }']],
    ['-f program file', ['awk', '-f', 'prog.awk', 'in.txt']],
    ['-fprog attached', ['awk', '-fprog.awk', 'in.txt']],
    ['--file abbreviated', ['gawk', '--fi=prog.awk', 'in.txt']],
    ['-E exec file', ['gawk', '-E', 'prog.awk']],
    ['--exec', ['gawk', '--exec', 'prog.awk']],
    ['-i include', ['gawk', '-i', 'lib.awk', '{ print }']],
    ['-l load extension', ['gawk', '-l', 'evil', '{ print }']],
    ['--load', ['gawk', '--load=evil', '{ print }']],
    ['-W (gawk and mawk options)', ['mawk', '-W', 'exec', 'prog.awk']],
    ['-o pretty-print writes a file', ['gawk', '-o/tmp/out', '{ print }']],
    ['-p profile writes a file', ['gawk', '--profile=/tmp/out', '{ print }']],
    ['-d dump writes a file', ['gawk', '-d/tmp/out', '{ print }']],
    ['an unknown option', ['awk', '-q', '{ print }']],
    ['an ambiguous long option', ['gawk', '--p', '{ print }']],
    ['-e source holding system', ['gawk', '-e', 'BEGIN { system("id") }']],
    ['--source= holding a pipe', ['gawk', '--source=BEGIN { print | "sh" }']],
    ['a second -e with the payload', ['gawk', '-e', 'BEGIN { x = 1 }', '-e', 'END { system("id") }', 'f']],
    ['the program after -v and -F', ['awk', '-F:', '-v', 'x=1', '{ system($1) }', '/etc/passwd']],
    ['the program after --', ['awk', '--', 'BEGIN { system("id") }']],
    ['a network special file as input', ['gawk', '{ print }', '/inet/tcp/0/example.com/80']],
    ['gawk', ['gawk', 'BEGIN{system("id")}']],
    ['mawk', ['mawk', 'BEGIN{system("id")}']],
    ['nawk', ['nawk', 'BEGIN{system("id")}']],
    ['path-qualified awk', ['/usr/bin/awk', 'BEGIN{system("id")}']],
  ])('%s is refused', (_label, argv) => {
    expect(refused(argv)).toBe(true);
    if (!(argv[0] as string).includes('/')) expect(checkCommand(argv, anyAwk).ok).toBe(false);
  });

  test('busybox awk is judged as awk', () => {
    expect(checkCommand(['busybox', 'awk', 'BEGIN{system("id")}'], anyAwk).ok).toBe(false);
    expect(checkCommand(['busybox', 'awk', '{ print $1 }', 'f'], anyAwk)).toEqual({ ok: true, via: 'glob' });
  });

  test.each([
    ['print a field', ['awk', '{ print $1 }', 'in.txt']],
    ['a regex alternation', ['awk', '/a|b/ { print }', 'in.txt']],
    ['a negated regex', ['awk', '!/^#/', 'in.txt']],
    ['a regex with a bracket and class', ['awk', '/^[[:space:]]*[a-z]+[]x]/ { n++ } END { print n }', 'in.txt']],
    ['a regex holding > and |', ['awk', '$0 ~ /x>y|z/ { print }', 'in.txt']],
    ['a comparison pattern', ['awk', '$3 > 100 { print $1 }', 'in.txt']],
    ['a comparison in parentheses inside print', ['awk', '{ print ($1 > 5), ($2 >= 3) }', 'in.txt']],
    ['a comparison in a condition', ['awk', '{ if ($1 > 0 && $2 < 5) print $1 }', 'in.txt']],
    ['logical or', ['awk', '$1 == "a" || $2 == "b"', 'in.txt']],
    ['strings holding | > and system', ['awk', '{ s = "a|b>c system()"; print s }', 'in.txt']],
    ['escaped quote in a string', ['awk', '{ print "say \\"hi\\"" }', 'in.txt']],
    ['division', ['awk', '{ print $1 / 2, $2 / $3 }', 'in.txt']],
    ['division after a parenthesis', ['awk', '{ x = ($1 + 1) / 2; print x }', 'in.txt']],
    ['a regex after a control condition', ['awk', '{ if ($1) /x/ ; print }', 'in.txt']],
    ['sums', ['awk', '{ s += $2 } END { printf "%d\\n", s }', 'in.txt']],
    ['-F and -v', ['awk', '-F,', '-v', 'OFS=|', '{ $1 = $1; print }', 'in.csv']],
    ['getline from input', ['awk', 'NR == 1 { getline; print }', 'in.txt']],
    ['split and substr', ['awk', '{ n = split($0, a, ":"); print substr(a[1], 2) }', 'in.txt']],
    ['close is fine', ['awk', 'END { close("x") }', 'in.txt']],
    ['gawk --sandbox and -e', ['gawk', '--sandbox', '-e', '{ print NR }', 'in.txt']],
    ['an assignment operand', ['awk', '{ print x }', 'x=1', 'in.txt']],
    ['the program only', ['awk', 'BEGIN { print 1 }']],
    ['no program', ['awk', '--version']],
  ])('%s is allowed', (_label, argv) => {
    expect(findDangerousArgument(argv)).toBeUndefined();
    expect(checkCommand(argv, anyAwk)).toEqual({ ok: true, via: 'glob' });
  });

  test('names the form, never the program', () => {
    expect(findDangerousArgument(['awk', 'BEGIN{system("secret-token")}'])).toEqual({ program: 'awk', form: 'awk system()/pipe/redirection/getline </@' });
    expect(findDangerousArgument(['awk', '-f', 'secret-token'])?.form).not.toContain('secret-token');
  });
});
