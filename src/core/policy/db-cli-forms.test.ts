import { describe, expect, test } from 'vitest';
import { checkCommand, type CommandAllowlist } from './check-command.js';
import { findDangerousArgument } from './find-dangerous-argument.js';

// Database and scripting CLIs a glob admits (`Bash(sqlite3:*)`), whose own grammar runs, loads or writes.
const anyOf: CommandAllowlist = { commands: [], globs: ['sqlite3', 'sqlite', 'psql', 'm4', 'tclsh', 'tclsh8.6', 'wish', 'expect'].map((program) => [program, '*']) };

const refused = (argv: readonly string[]): void => {
  expect(findDangerousArgument(argv)).toBeDefined();
  expect(checkCommand(argv, anyOf).ok).toBe(false);
};
const allowed = (argv: readonly string[]): void => {
  expect(findDangerousArgument(argv)).toBeUndefined();
  expect(checkCommand(argv, anyOf)).toEqual({ ok: true, via: 'glob' });
};

describe('sqlite3 under a glob', () => {
  test.each([
    ['.shell', ['sqlite3', ':memory:', '.shell touch x']],
    ['.system', ['sqlite3', 'db', '.system id']],
    ['a prefix of .shell', ['sqlite3', 'db', '.sh id']],
    ['blanks before the name', ['sqlite3', 'db', '. shell id']],
    ['a quoted name', ['sqlite3', 'db', '."sh\\x65ll" id']],
    ['a name in capitals', ['sqlite3', 'db', '.SHELL id']],
    ['a later line', ['sqlite3', 'db', 'select 1;\n  .shell id']],
    ['.load', ['sqlite3', 'db', '.load ./x.so']],
    ['.output', ['sqlite3', 'db', '.output out.txt', 'select 1']],
    ['.once to a pipe', ['sqlite3', 'db', '.once |id', 'select 1']],
    ['.excel', ['sqlite3', 'db', '.excel']],
    ['.read', ['sqlite3', 'db', '.read x.sql']],
    ['.import', ['sqlite3', 'db', '.import /etc/passwd t']],
    ['.open', ['sqlite3', 'db', '.open other.db']],
    ['.save', ['sqlite3', 'db', '.save copy.db']],
    ['.backup', ['sqlite3', 'db', '.backup copy.db']],
    ['.cd', ['sqlite3', 'db', '.cd /']],
    ['.log', ['sqlite3', 'db', '.log out.txt']],
    ['.trace', ['sqlite3', 'db', '.trace out.txt']],
    ['.archive', ['sqlite3', 'db', '.ar -x']],
    ['-cmd', ['sqlite3', '-cmd', '.system id', 'db']],
    ['--cmd', ['sqlite3', '--cmd', 'select 1', 'db']],
    ['-init', ['sqlite3', '-init', 'x.sql', 'db']],
    ['-A (an archive extracted)', ['sqlite3', 'a.db', '-Ax']],
    ['an option that cannot be checked', ['sqlite3', '---cmd', 'x', 'db']],
    ['writefile()', ['sqlite3', 'db', "select writefile('x', 'y')"]],
    ['WriteFile() in another case', ['sqlite3', 'db', "SELECT WriteFile('x','y')"]],
    ['readfile()', ['sqlite3', 'db', "select readfile('/etc/shadow')"]],
    ['edit()', ['sqlite3', 'db', "select edit('', 'sh -c id')"]],
    ['load_extension()', ['sqlite3', 'db', "select load_extension('./x.so')"]],
    ['a quoted function name', ['sqlite3', 'db', 'select "load_extension"(\'./x.so\')']],
    ['fts3_tokenizer()', ['sqlite3', 'db', "select fts3_tokenizer('simple')"]],
    ['fsdir', ['sqlite3', 'db', "select name from fsdir('/')"]],
    ['zipfile', ['sqlite3', 'db', "create virtual table z using zipfile('/tmp/x.zip')"]],
    ['ATTACH', ['sqlite3', 'db', "attach '/tmp/x' as x"]],
    ['VACUUM INTO', ['sqlite3', 'db', "vacuum/**/into '/tmp/x'"]],
    ['a versioned name', ['sqlite', 'db', '.shell id']],
  ])('refuses %s', (_label, argv) => {
    refused(argv);
  });

  test.each([
    ['a query', ['sqlite3', 'app.db', 'select * from users where id = 1']],
    ['.tables', ['sqlite3', 'app.db', '.tables']],
    ['.schema of a table', ['sqlite3', 'app.db', '.schema users']],
    ['.mode and .headers', ['sqlite3', 'app.db', '.mode csv', '.headers on', 'select 1']],
    ['output options', ['sqlite3', '-header', '-csv', '--readonly', 'app.db', 'select 1']],
    ['a column that only starts like a refused word', ['sqlite3', 'app.db', 'select edited_at, attachment from t']],
  ])('allows %s', (_label, argv) => {
    allowed(argv);
  });
});

describe('psql under a glob', () => {
  test.each([
    ['\\!', ['psql', '-c', '\\! id']],
    ['\\! in a cluster', ['psql', '-Xc', '\\! id']],
    ['\\! attached', ['psql', '-c\\! id']],
    ['--command abbreviated', ['psql', '--comm=\\! id']],
    ['\\! after a display command', ['psql', '-c', '\\x \\! id']],
    ['\\o to a pipe', ['psql', '-c', '\\o |id']],
    ['\\o to a file', ['psql', '-c', '\\out out.txt']],
    ['\\g to a pipe', ['psql', '-c', '\\g |id']],
    ['\\copy … program', ['psql', '-c', "\\copy t to program 'id'"]],
    ['COPY … PROGRAM in SQL', ['psql', '-c', "COPY t TO PROGRAM 'id'"]],
    ['\\w', ['psql', '-c', '\\w out.sql']],
    ['\\i', ['psql', '-c', '\\i x.sql']],
    ['\\ir', ['psql', '-c', '\\ir x.sql']],
    ['\\include', ['psql', '-c', '\\include x.sql']],
    ['\\setenv', ['psql', '-c', '\\setenv PAGER id']],
    ['\\set', ['psql', '-c', '\\set x 1']],
    ['\\e', ['psql', '-c', '\\e']],
    ['a backquote in a display command', ['psql', '-c', '\\echo `id`']],
    ['a pipe glued to a display command', ['psql', '-c', '\\x|id']],
    ['-f', ['psql', '-f', 'x.sql']],
    ['--file abbreviated', ['psql', '--fi=x.sql']],
    ['-o', ['psql', '-o', 'out.txt', '-c', 'select 1']],
    ['-L', ['psql', '-L', 'log.txt', '-c', 'select 1']],
    ['--log-file', ['psql', '--log-file=log.txt']],
    ['-v PROMPT1', ['psql', '-v', 'PROMPT1=%`id`']],
    ['a connection string naming sslkeylogfile', ['psql', 'host=db sslkeylogfile=/tmp/k']],
    ['an unknown option', ['psql', '--frobnicate']],
  ])('refuses %s', (_label, argv) => {
    refused(argv);
  });

  test.each([
    ['a query', ['psql', '-X', '-d', 'app', '-c', 'select count(*) from users']],
    ['\\dt+', ['psql', '-c', '\\dt+']],
    ['\\d of a table', ['psql', 'app', '-c', '\\d users']],
    ['\\l', ['psql', '-c', '\\l']],
    ['-v ON_ERROR_STOP', ['psql', '-v', 'ON_ERROR_STOP=1', '-c', 'select 1']],
  ])('allows %s', (_label, argv) => {
    allowed(argv);
  });
});

describe('m4 and Tcl under a glob', () => {
  test.each([
    ['m4 with a file', ['m4', 'x.m4']],
    ['m4 alone (its input holds syscmd)', ['m4']],
    ['tclsh with a script', ['tclsh', 'x.tcl']],
    ['a versioned tclsh', ['tclsh8.6', 'x.tcl']],
    ['wish with a script', ['wish', '-f', 'x.tcl']],
    ['expect -c', ['expect', '-c', 'exec id']],
  ])('refuses %s', (_label, argv) => {
    refused(argv);
  });

  test('allows tclsh with no argument', () => {
    allowed(['tclsh']);
  });
});
