import { describe, expect, test } from 'vitest';
import { clusterHolds, holdsForm, matchesLongOption, optionValues } from './option-forms.js';

describe('option forms', () => {
  test('a long form matches its prefixes from min, and a family every name it starts', () => {
    const forms = [{ name: 'checkpoint-action', min: 11 }, { name: 'inspect', family: true }];
    expect(['--checkpoint-action=x', '--checkpoint-a', '--checkpoint-', '--inspect', '--insp', '--inspect-brk=1'].map((arg) => matchesLongOption(arg, forms))).toEqual([true, true, true, true, true, true]);
    expect(['--checkpoint', '--checkpoint=5', '-checkpoint-action', '--install'].map((arg) => matchesLongOption(arg, forms))).toEqual([false, false, false, false]);
  });

  test('a cluster holds a letter until a value starts', () => {
    expect(clusterHolds('-vxo', 'o', 'f')).toBe(true);
    expect(clusterHolds('-fo', 'o', 'f')).toBe(false);
  });

  test('values of an option however given, up to --', () => {
    const args = ['-oA', '-o', 'B', '-vo', 'C', '-ioD', '--write-out=E', '--write', 'F', '--', '-oG'];
    expect(optionValues(args, 'o', [{ name: 'write-out' }], 'i')).toEqual(['A', 'B', 'C', 'E', 'F']);
  });

  test('holdsForm stops at --, and reads an action only as the first plain argument', () => {
    const rule = { form: 'x', short: 'x', actions: new Set(['run']) };
    expect(holdsForm(['--', '-x'], rule)).toBe(false);
    expect(holdsForm(['-a', 'run'], rule)).toBe(true);
    expect(holdsForm(['good', 'run'], rule)).toBe(false);
  });
});
