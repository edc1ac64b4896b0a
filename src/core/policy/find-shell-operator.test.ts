import { describe, expect, test } from 'vitest';
import { findShellOperator } from './find-shell-operator.js';

describe('findShellOperator: what a POSIX shell would act on', () => {
  test.each([
    ['git status && rm -rf x', '&&'],
    ['git status&&rm', '&&'],
    ['make || true', '||'],
    ['ls; rm x', ';'],
    ['cat a | sh', '|'],
    ['sleep 1 &', '&'],
    ['echo x > out', '>'],
    ['echo x >> out', '>'],
    ['sort < in', '<'],
    ['echo $(id)', '$('],
    ['echo `id`', '`'],
    ['ls\nrm x', '\n'],
    ['ls\rrm x', '\n'],
    ['echo "$(id)"', '$('],
    ['echo "`id`"', '`'],
    ['echo "open && rm', '&&'],
    ["echo 'open ; rm", ';'],
    ['a 2>&1', '>'],
  ])('%j → %j', (command, operator) => {
    expect(findShellOperator(command)).toBe(operator);
  });

  test.each([
    'git status',
    'git commit -m "a && b"',
    "git commit -m 'a; b | c > d'",
    "echo '$(id)' '`id`'",
    'echo a\\;b \\&\\& c',
    'grep -E "x|y" file',
    'echo $HOME',
    'echo "price: $5"',
    'echo ${x}',
  ])('%j holds no operator', (command) => {
    expect(findShellOperator(command)).toBeUndefined();
  });
});
