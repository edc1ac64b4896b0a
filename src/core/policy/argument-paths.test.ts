import { describe, expect, test } from 'vitest';
import { lexicalPath } from '../action/resolve-action-lexically.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import { argumentPaths } from './argument-paths.js';
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

  test('an absolute argument stays absolute, and is placed in the workspace by its roots', () => {
    expect(spelled(['cat', '/work/.env'], 'sub', ['/work'])).toEqual(['.env']);
    expect(spelled(['cat', '/etc/passwd'], 'sub', ['/work'])).toEqual(['/etc/passwd']);
    expect(spelled(['cat', '~/.ssh/id_rsa', 'C:\\keys\\a.pem'], 'sub')).toEqual(['~/.ssh/id_rsa', 'C:/keys/a.pem', '/keys/a.pem']);
  });

  test('the program itself and empty values are not paths', () => {
    expect(spelled(['.env'])).toEqual([]);
    expect(spelled(['env', 'A='])).toEqual(['A=']);
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
