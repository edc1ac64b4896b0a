import { describe, expect, test } from 'vitest';
import { lexicalPath } from '../action/resolve-action-lexically.js';
import type { ResolvedAction, ResolvedCommand, ResolvedPath } from '../action/resolved-action.js';
import { argumentPaths, MAX_RESOLVED_ARGUMENTS, resolvableArguments } from './argument-paths.js';
import { createPolicy } from './create-policy.js';
import { callOf } from './__fixtures__/tool-views.js';

const spelled = (argv: readonly string[], cwd = '.', roots: readonly string[] = []) => argumentPaths(argv, cwd, roots).map((path) => path.relative ?? path.path);

describe('argumentPaths', () => {
  test('each argument after the program, read against the working directory', () => {
    expect(spelled(['cat', '.env', 'sub/../.git/config'])).toEqual(['.env', '.git/config']);
    expect(spelled(['cat', '../.env'], 'sub')).toEqual(['.env']);
    expect(spelled(['cat', '.env'], 'sub')).toEqual(['sub/.env']);
  });

  test('the value after = or : as well (an option, a dd operand, a git revision)', () => {
    expect(spelled(['dd', 'if=.env'])).toEqual(['if=.env', '.env']);
    expect(spelled(['git', 'show', 'HEAD:.env'])).toEqual(['show', 'HEAD:.env', '.env']);
    expect(spelled(['tool', '--config=.git/config'])).toEqual(['--config=.git/config', '.git/config']);
  });

  test('the file an @ names, as a whole argument or a value (curl -d @file, -F name=@file, a response file)', () => {
    expect(spelled(['curl', '-d', '@.env', 'https://example.org'])).toContain('.env');
    expect(spelled(['curl', '-F', 'file=@.git/config', 'https://example.org'])).toContain('.git/config');
    expect(spelled(['gcc', '@sub/../.env'])).toContain('.env');
    expect(resolvableArguments(['curl', '--data-binary', '@link', 'x'], '.')).toContain('link');
    expect(resolvableArguments(['curl', '-F', 'f=@link'], 'sub')).toContain('sub/link');
  });

  test('an absolute argument stays absolute, and is placed in the workspace by its roots', () => {
    expect(spelled(['cat', '/work/.env'], 'sub', ['/work'])).toEqual(['.env']);
    expect(spelled(['cat', '/etc/passwd'], 'sub', ['/work'])).toEqual(['/etc/passwd']);
    expect(spelled(['cat', '~/.ssh/id_rsa', 'C:\\keys\\a.pem'], 'sub')).toEqual(['~/.ssh/id_rsa', 'C:/keys/a.pem', '/keys/a.pem']);
  });

  test("a short option's attached value, after any bundled flags (cp -t.git/hooks, tar -C/root/.ssh, tar -xvf.env)", () => {
    expect(spelled(['cp', '-t.git/hooks', 'x'])).toContain('.git/hooks');
    expect(spelled(['tar', '-cf', 'o.tar', '-C/root/.ssh', 'id_rsa'])).toContain('/root/.ssh');
    expect(spelled(['tar', '-xvf.env'])).toContain('.env');
    expect(spelled(['grep', '-f.env', 'x'])).toContain('.env');
    expect(resolvableArguments(['cp', '-tnotes', 'x'], 'sub')).toContain('sub/notes');
    // A long option is read as a whole and after its =, as before; nine bundled flags and more are not taken apart.
    expect(spelled(['tool', '--x.env'])).not.toContain('.env');
    expect(spelled(['tool', '-abcdefghi.env'])).not.toContain('.env');
    expect(resolvableArguments(['ls', '-la', '-o:out.txt'], '.')).toEqual(['out.txt']);
  });

  test('the program itself and empty values are not paths', () => {
    expect(spelled(['.env'])).toEqual([]);
    expect(spelled(['env', 'A='])).toEqual(['A=']);
  });
});

describe('resolvableArguments', () => {
  test('the same candidates, joined to the working directory as spelled, for a host to walk', () => {
    expect(resolvableArguments(['cat', 'settings.txt', 'sub/../.env'], '.')).toEqual(['settings.txt', 'sub/../.env']);
    expect(resolvableArguments(['cat', 'up/../../.env'], 'sub')).toEqual(['sub/up/../../.env']);
    expect(resolvableArguments(['dd', 'if=backup.txt', 'HEAD:link'], '.')).toEqual(['if=backup.txt', 'backup.txt', 'HEAD:link', 'link']);
  });

  test('an absolute argument stays absolute; no shell expands ~ in an argv, so ~/x is under the working directory', () => {
    expect(resolvableArguments(['cat', '/etc/passwd', '~/.env'], 'sub')).toEqual(['/etc/passwd', 'sub/~/.env']);
  });

  test('an option is not a path, the value after its = or : is; empty parts and a NUL are left out', () => {
    expect(resolvableArguments(['ls', '-la', '--color', '--file=link.txt', '-o:out.txt', '', 'a\0b', 'A='], '.')).toEqual(['link.txt', 'out.txt', 'A=']);
  });

  test(`at most ${MAX_RESOLVED_ARGUMENTS} candidates; more is none at all`, () => {
    const names = (count: number) => Array.from({ length: count }, (_, index) => `f${index}`);
    expect(resolvableArguments(['cat', ...names(MAX_RESOLVED_ARGUMENTS)], '.')).toHaveLength(MAX_RESOLVED_ARGUMENTS);
    expect(resolvableArguments(['cat', ...names(MAX_RESOLVED_ARGUMENTS + 1)], '.')).toBeUndefined();
    expect(resolvableArguments(['cat', ...names(MAX_RESOLVED_ARGUMENTS / 2).map((name) => `${name}=x`)], '.')).toHaveLength(MAX_RESOLVED_ARGUMENTS);
    expect(resolvableArguments(['cat', ...names(MAX_RESOLVED_ARGUMENTS), '-v', '--all'], '.')).toHaveLength(MAX_RESOLVED_ARGUMENTS);
  });
});

describe('a protected path a call reaches by another name', () => {
  const policy = createPolicy({ allowedCommandGlobs: ['cat *', 'cp *', 'ls *'], readableProtectedPaths: ['.env.example'] });
  const command = (argv: readonly string[]) => {
    const action: ResolvedAction = { resolvedBy: 'lexical', access: 'read', files: [lexicalPath('.')], command: { argv, executable: undefined, cwd: lexicalPath('.') } };
    return policy.decideArguments(callOf('command', { command: argv }, { action }));
  };

  test('a command naming a protected path in its arguments asks, however the path is spelled', () => {
    for (const argv of [['cat', '.env'], ['cat', './sub/../.env'], ['cp', 'payload', '.git/config'], ['cat', '--file=.env.local'], ['cat', '.env.example']]) {
      expect(command(argv), argv.join(' ')).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    }
  });

  test('a command naming only ordinary files is left to the rules', () => {
    expect(command(['ls', '-la', 'src'])).toMatchObject({ kind: 'allow' });
    expect(command(['cat', 'notes.md', 'env.md'])).toMatchObject({ kind: 'allow' });
  });

  const resolvedCommand = (argv: readonly string[], resolved: Partial<Pick<ResolvedCommand, 'arguments' | 'tooManyArguments'>>) => {
    const action: ResolvedAction = { resolvedBy: 'host', access: 'read', files: [lexicalPath('.')], command: { argv, executable: '/bin/cat', cwd: lexicalPath('.'), ...resolved } };
    return policy.decideArguments(callOf('command', { command: argv }, { action }));
  };
  const argumentAt = (requested: string, real: string, flags: Partial<ResolvedPath>): ResolvedPath => ({ ...lexicalPath(requested), real, ...flags });

  test('a command whose argument a host resolved to a protected file asks: a link, a chain, a folder link, a .. after a link', () => {
    const links: readonly (readonly [string, string])[] = [['settings.txt', '.env'], ['chain.txt', '.env'], ['cfg/config', '.git/config'], ['up/../../.env', '.env'], ['link', '.env.example']];
    for (const [requested, real] of links) {
      const resolved = { arguments: [argumentAt(requested, real, { protected: true, linkTraversal: true })] };
      expect(resolvedCommand(['cat', requested], resolved), requested).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    }
  });

  test('a command naming a file with several hard links asks, whatever its name', () => {
    expect(resolvedCommand(['cat', 'backup.txt'], { arguments: [argumentAt('backup.txt', 'backup.txt', { hardLinked: true })] })).toMatchObject({ kind: 'ask', reason: 'protected_path' });
  });

  test('a command naming more paths than a host resolves asks; ordinary resolved names and missing ones are left to the rules', () => {
    expect(resolvedCommand(['cat', 'notes.md'], { tooManyArguments: true })).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    const ordinary = [argumentAt('notes.md', 'notes.md', {}), argumentAt('nothere/x.txt', 'nothere/x.txt', { created: true })];
    expect(resolvedCommand(['cat', 'notes.md', 'nothere/x.txt'], { arguments: ordinary })).toMatchObject({ kind: 'allow' });
  });

  test('a read of a file with several hard links asks even where the name is ordinary, and even where it is readable', () => {
    const read = (path: string, hardLinked: boolean) => {
      const file = { ...lexicalPath(path), hardLinked };
      const action: ResolvedAction = { resolvedBy: 'host', access: 'read', files: [file] };
      return policy.decideArguments(callOf('read', { path }, { action }));
    };
    expect(read('notes.md', true)).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    expect(read('.env.example', true)).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    expect(read('notes.md', false)).toMatchObject({ kind: 'allow' });
    expect(read('.env.example', false)).toMatchObject({ kind: 'allow' });
  });
});
