import { describe, expect, test } from 'vitest';
import { lexicalPath } from '../action/resolve-action-lexically.js';
import type { ResolvedCommand } from '../action/resolved-action.js';
import { fileCommandPaths } from './file-command-paths.js';

const spelled = (argv: readonly string[], command?: ResolvedCommand): readonly string[] | undefined => fileCommandPaths(argv, command, ['/w'])?.map((path) => path.relative ?? path.path);

describe('fileCommandPaths', () => {
  test('the argument paths of a file command, by its base name, read against its working directory', () => {
    expect(spelled(['cat', 'credentials.txt'])).toEqual(['credentials.txt']);
    expect(spelled(['/bin/cat', 'credentials.txt'])).toEqual(['credentials.txt']);
    expect(spelled(['HEAD.EXE', '-n', '1', './a/../credentials.txt'])).toEqual(['-n', '1', 'credentials.txt']);
    expect(spelled(['cat', 'key'], { argv: ['cat', 'key'], executable: undefined, cwd: lexicalPath('sub') })).toEqual(['sub/key']);
  });

  test('the file command an exec wrapper runs, without the wrapper and its operands', () => {
    expect(spelled(['timeout', '5', 'nice', 'tail', 'credentials.txt'])).toEqual(['credentials.txt']);
  });

  test('a command that runs no file command names none', () => {
    expect(spelled(['echo', 'credentials.txt'])).toBeUndefined();
    expect(spelled(['npm', 'test', 'credentials.txt'])).toBeUndefined();
    expect(spelled(['timeout', '5', 'npm', 'test'])).toBeUndefined();
  });

  test('where the host resolved an argument, when that is elsewhere (a link to the file)', () => {
    const command: ResolvedCommand = {
      argv: ['cat', 'alias.txt'],
      executable: '/bin/cat',
      cwd: lexicalPath('.'),
      arguments: [{ ...lexicalPath('alias.txt'), real: 'credentials.txt', linkTraversal: true }],
    };
    expect(spelled(['cat', 'alias.txt'], command)).toEqual(['alias.txt', 'credentials.txt']);
  });

  test('where the host placed an argument spelled from above the root, in the workspace', () => {
    const command: ResolvedCommand = { argv: ['cat', '../w/secret.txt'], executable: '/bin/cat', cwd: lexicalPath('.'), arguments: [lexicalPath('secret.txt')] };
    expect(spelled(['cat', '../w/secret.txt'], command)).toEqual(['w/secret.txt', 'secret.txt']);
  });
});
