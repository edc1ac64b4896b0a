import { describe, expect, it } from 'vitest';
import { trailingRunStart, withoutTrailingRun } from './trailing-run.js';

const dotOrSpace = (char: string): boolean => char === '.' || char === ' ';

describe('withoutTrailingRun', () => {
  it('leaves off the run at the end and nothing before it', () => {
    expect(withoutTrailingRun('.git. . .', dotOrSpace)).toBe('.git');
    expect(withoutTrailingRun('a.b', dotOrSpace)).toBe('a.b');
    expect(withoutTrailingRun('. .', dotOrSpace)).toBe('');
    expect(withoutTrailingRun('', dotOrSpace)).toBe('');
    expect(trailingRunStart('x\r\n\n', (char) => char === '\n' || char === '\r')).toBe(1);
  });

  it('agrees with the anchored regular expression it stands for', () => {
    for (const text of ['', 'a', 'a. ', ' .a. .', '....', 'a .b', 'x. . y. ']) expect(withoutTrailingRun(text, dotOrSpace)).toBe(text.replace(/[. ]+$/, ''));
  });

  it('reads a run of 200,000 in one scan', () => {
    const text = `${' .'.repeat(100_000)}a.`;
    expect(withoutTrailingRun(text, dotOrSpace)).toBe(`${' .'.repeat(100_000)}a`);
  });
});
