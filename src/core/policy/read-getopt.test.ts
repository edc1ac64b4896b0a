import { describe, expect, test } from 'vitest';
import { readGetopt, withArity, type GetoptGrammar } from './read-getopt.js';

const grammar: GetoptGrammar = {
  short: { ...withArity('ab', 'none'), c: 'required', d: 'optional' },
  long: { ...withArity(['all', 'all-files', 'brief'], 'none'), count: 'required', debug: 'optional' },
};

describe('readGetopt reads arguments as GNU getopt_long does', () => {
  test.each([
    ['a cluster with a value attached', ['-abcX'], [{ option: 'a' }, { option: 'b' }, { option: 'c', value: 'X' }]],
    ['a value in the next argument', ['-ac', '-b'], [{ option: 'a' }, { option: 'c', value: '-b' }]],
    ['an optional value only attached', ['-d', 'x', '-dy'], [{ option: 'd' }, { operand: 'x' }, { option: 'd', value: 'y' }]],
    ['an abbreviated long name', ['--br', '--cou=3', '--co', '4'], [{ option: 'brief' }, { option: 'count', value: '3' }, { option: 'count', value: '4' }]],
    ['a full name that starts another', ['--all'], [{ option: 'all' }]],
    ['an optional long value only after =', ['--debug', 'x', '--debug=y'], [{ option: 'debug' }, { operand: 'x' }, { option: 'debug', value: 'y' }]],
    ['operands and options mixed', ['x', '-a', '--', '-b'], [{ operand: 'x' }, { option: 'a' }, { operand: '-b' }]],
    ['- is an operand', ['-'], [{ operand: '-' }]],
  ])('%s', (_label, args, items) => {
    expect(readGetopt(args, grammar)).toEqual(items);
  });

  test('with a leading +, options end at the first operand', () => {
    expect(readGetopt(['-a', 'cmd', '-b', '--', 'x'], { ...grammar, stopAtOperand: true })).toEqual([{ option: 'a' }, { operand: 'cmd' }, { operand: '-b' }, { operand: '--' }, { operand: 'x' }]);
  });

  test.each([
    ['an unknown short option', ['-z']],
    ['an unknown letter in a cluster', ['-az']],
    ['a missing value', ['-c']],
    ['a missing long value', ['--count']],
    ['an ambiguous prefix', ['--al']],
    ['an unknown long option', ['--frob']],
    ['a value given to a flag', ['--brief=x']],
    ['a name inherited from Object', ['--constructor']],
  ])('%s is unreadable', (_label, args) => {
    expect(readGetopt(args, grammar)).toBeUndefined();
  });
});
