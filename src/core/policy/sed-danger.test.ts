import { describe, expect, test } from 'vitest';
import { checkCommand } from './check-command.js';
import { findDangerousArgument } from './find-dangerous-argument.js';

const refused = (argv: readonly string[]): boolean => findDangerousArgument(argv) !== undefined;

describe('findDangerousArgument: sed forms that execute, read or write', () => {
  const anySed = { commands: [], globs: [['sed', '*']] };
  // Each of the first group ran `id` or wrote a file under GNU sed 4.9 with only `['sed', '*']` allowed.
  test.each([
    ['s with a letter delimiter and the e flag', ['sed', 'sx.*xidxe', 'in.txt']],
    ['s with a letter delimiter and the w flag', ['sed', 'sx.*xwrittenxwout.txt', 'in.txt']],
    ['first~step address', ['sed', '1~1e id', 'in.txt']],
    ['first~ without a step', ['sed', '1~e id', 'in.txt']],
    ['/re/I address', ['sed', '/a/Ie id', 'in.txt']],
    ['/re/ I M address flags with blanks', ['sed', '/a/ I M e id', 'in.txt']],
    ['-Eee cluster', ['sed', '-Eee', 'in.txt']],
    ['-nEe cluster with the script attached', ['sed', '-nEe1e id', 'in.txt']],
    ['--exp= abbreviation', ['sed', '--exp=1e id', 'in.txt']],
    ['--expression separate value', ['sed', '--expression', 'e id', 'in.txt']],
    ['--e abbreviation', ['sed', '--e', 'w out', 'in.txt']],
    ['--i abbreviation of --in-place', ['sed', '--i', 's/hello/PWNED/', 'f.txt']],
    ['--in-place=suffix', ['sed', '--in-place=.bak', 's/a/b/', 'f.txt']],
    ['--fil= abbreviation of --file', ['sed', '--fil=script.sed', 'in.txt']],
    ['--f abbreviation of --file', ['sed', '--f', 'script.sed', 'in.txt']],
    ['-i', ['sed', '-i', 's/hello/PWNED/', 'f.txt']],
    ['-ibak', ['sed', '-ibak', 's/a/b/', 'f.txt']],
    ['-ni cluster', ['sed', '-ni', 's/a/b/p', 'f.txt']],
    ['-Ei cluster', ['sed', '-Ei', 's/a/b/', 'f.txt']],
    ['-f', ['sed', '-f', 'script.sed', 'in.txt']],
    ['-nf cluster', ['sed', '-nfscript.sed', 'in.txt']],
    ['-i after the files', ['sed', 's/a/b/', 'f.txt', '-i']],
    ['s///e', ['sed', 's/.*/id/e', 'in.txt']],
    ['s///w', ['sed', 's/a/b/w out.txt', 'in.txt']],
    ['s///gpe', ['sed', 's/a/b/gpe', 'in.txt']],
    ['s///2w', ['sed', 's/a/b/2w out', 'in.txt']],
    ['s flags after blanks', ['sed', 's/a/b/ g e', 'in.txt']],
    ['s with escaped delimiters', ['sed', 's/a\\/b/c\\/d/e', 'in.txt']],
    ['s with a bracketed delimiter in the pattern', ['sed', 's/[/]/x/e', 'in.txt']],
    ['s with a ; delimiter', ['sed', 's;a;b;e', 'in.txt']],
    ['s with a space delimiter', ['sed', 's a b e', 'in.txt']],
    ['e command', ['sed', 'e id', 'in.txt']],
    ['e command alone', ['sed', 'e', 'in.txt']],
    ['w command', ['sed', 'w out.txt', 'in.txt']],
    ['W command', ['sed', '$W out.txt', 'in.txt']],
    ['r command', ['sed', 'r /etc/passwd', 'in.txt']],
    ['R command', ['sed', '1R /etc/passwd', 'in.txt']],
    ['e after ;', ['sed', 's/a/b/;e id', 'in.txt']],
    ['e after a newline', ['sed', 'p\ne id', 'in.txt']],
    ['e in a block', ['sed', '/x/{p;e id\n}', 'in.txt']],
    ['e after !', ['sed', '$!e id', 'in.txt']],
    ['e after ! and blanks', ['sed', '1 ! e id', 'in.txt']],
    ['e after addr,+N', ['sed', '1,+2e id', 'in.txt']],
    ['e after addr,~N', ['sed', '1,~4e id', 'in.txt']],
    ['e after 0,/re/', ['sed', '0,/x/e id', 'in.txt']],
    ['e after \\cREc', ['sed', '\\,a/b,e id', 'in.txt']],
    ['e after \\cREc with a letter', ['sed', '\\xaxe id', 'in.txt']],
    ['e after a label', ['sed', ':a;e id', 'in.txt']],
    ['e after b', ['sed', 'b end;e id;:end', 'in.txt']],
    ['e after y', ['sed', 'y/ab/cd/;e id', 'in.txt']],
    ['e after y with a letter delimiter', ['sed', 'yxabxcdx;e id', 'in.txt']],
    ['e after q with an exit code', ['sed', '$q5\ne id', 'in.txt']],
    ['e after a text that ends in an escaped backslash', ['sed', 'a\\\\\ne id', 'in.txt']],
    ['e after a comment', ['sed', '# note \\\ne id', 'in.txt']],
    ['e in a second -e', ['sed', '-e', 's/a/b/', '-e', '1e id', 'in.txt']],
    ['e in a block split over -e', ['sed', '-e', '/x/{', '-e', 'e id', '-e', '}', 'in.txt']],
    ['script before -e (POSIXLY_CORRECT)', ['sed', '1e id', '-e', 'p']],
    ['script after --', ['sed', '--', '1e id', 'in.txt']],
    ['unterminated s', ['sed', 's/a/b', 'in.txt']],
    ['s with a backslash delimiter', ['sed', 's\\a\\b\\', 'in.txt']],
    ['s with a non-ASCII delimiter', ['sed', 'séaébéé', 'in.txt']],
    ['unknown s flag', ['sed', 's/a/b/x', 'in.txt']],
    ['unknown command', ['sed', 'k', 'in.txt']],
    ['unclosed block', ['sed', '{p', 'in.txt']],
    ['stray }', ['sed', 'p;}', 'in.txt']],
    ['bracket holding a backslash', ['sed', 's/[\\/]/x/', 'in.txt']],
    ['unknown short option', ['sed', '-I', 's/a/b/', 'f.txt']],
    ['ambiguous long option', ['sed', '--s', 's/a/b/', 'f.txt']],
    ['unknown long option', ['sed', '--exec=id', 's/a/b/', 'f.txt']],
    ['-l with a script as its value (BSD -l takes none)', ['sed', '-l', '1w out', 'in.txt']],
    ['gsed', ['gsed', '1e id', 'in.txt']],
  ])('%s is refused', (_label, argv) => {
    expect(refused(argv)).toBe(true);
    expect(checkCommand(argv, anySed).ok).toBe(false);
  });

  test.each([
    ['s/a/b/g', ['sed', 's/a/b/g', 'in.txt']],
    ['-n 1,5p', ['sed', '-n', '1,5p', 'in.txt']],
    ['-E back-reference', ['sed', '-E', 's/(x)/\\1/', 'in.txt']],
    ['s with | delimiter', ['sed', 's|/usr|/opt|', 'in.txt']],
    ['/^#/d', ['sed', '/^#/d', 'in.txt']],
    ['$!N', ['sed', '$!N', 'in.txt']],
    ['a block', ['sed', '-n', '/start/,/end/{s/x/y/g;p}', 'in.txt']],
    ['a block over lines', ['sed', '-n', '/a/ {\n  s/a/b/\n  p\n}', 'in.txt']],
    ['several -e', ['sed', '-e', 's/a/b/', '-e', '/^$/d', 'in.txt']],
    ['-ne cluster', ['sed', '-ne', '2p', 'in.txt']],
    ['-nEe cluster with the script attached', ['sed', '-nEes/a/b/p', 'in.txt']],
    ['--expression=', ['sed', '--expression=s/a/b/', 'in.txt']],
    ['--quiet --regexp-extended', ['sed', '--quiet', '--regexp-ext', 's/(a)/\\1/p', 'in.txt']],
    ['-s -z -u', ['sed', '-szu', 's/a/b/', 'in.txt']],
    ['-l with a number', ['sed', '-l', '40', '-n', 'l', 'in.txt']],
    ['--line-length=', ['sed', '--line-length=40', 'l', 'in.txt']],
    ['--version', ['sed', '--version']],
    ['file names with command letters', ['sed', '-e', 's/a/b/', 'readme.md', 'write.txt', 'e.txt']],
    ['s flags', ['sed', 's/a/b/2gIpM', 'in.txt']],
    ['s with a letter delimiter', ['sed', 'sxaxbxg', 'in.txt']],
    ['s with escaped delimiters', ['sed', 's/a\\/b/c\\/d/', 'in.txt']],
    ['bracket expressions', ['sed', 's/[[:space:]]*$//;s/[]a-z]/x/g;s/[^]x]/y/', 'in.txt']],
    ['replacement holding e and w', ['sed', 's/x/we are e/', 'in.txt']],
    ['y', ['sed', 'y/abc/xyz/', 'in.txt']],
    ['first~step', ['sed', '-n', '0~4p', 'in.txt']],
    ['addr,+N', ['sed', '/x/,+2d', 'in.txt']],
    ['0,/re/', ['sed', '0,/x/s//y/', 'in.txt']],
    ['/re/I', ['sed', '/x/Id', 'in.txt']],
    ['\\cREc', ['sed', '-n', '\\,/usr/,p', 'in.txt']],
    ['append, insert and change text', ['sed', '/x/a written by e and w\n/y/i\\\nread\n$c\\end', 'in.txt']],
    ['labels and branches', ['sed', ':a;N;$!ba;s/\\n/ /g', 'in.txt']],
    ['t and T', ['sed', ':x\ns/aa/a/\ntx\nT\n', 'in.txt']],
    ['q with an exit code', ['sed', '10q1', 'in.txt']],
    ['Q', ['sed', '/stop/Q', 'in.txt']],
    ['= l F z', ['sed', '-n', '=;l;F;z', 'in.txt']],
    ['hold space', ['sed', '1!G;h;$!d', 'in.txt']],
    ['a comment', ['sed', '# strip\ns/a/b/ # done', 'in.txt']],
    ['standard input as -', ['sed', 's/a/b/', '-']],
  ])('%s is allowed', (_label, argv) => {
    expect(findDangerousArgument(argv)).toBeUndefined();
    // checkCommand refuses control characters (a newline) on its own.
    if (!argv.some((arg) => arg.includes('\n'))) expect(checkCommand(argv, anySed)).toEqual({ ok: true, via: 'glob' });
  });

  test('names the form, never the script', () => {
    expect(findDangerousArgument(['sed', '1e secret-token'])).toEqual({ program: 'sed', form: 'sed e/w/r command' });
    expect(findDangerousArgument(['sed', '--in', 's/a/b/', 'f'])).toEqual({ program: 'sed', form: 'sed -i/-f' });
  });
});
