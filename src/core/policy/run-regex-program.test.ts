import { describe, expect, it } from 'vitest';
import { compileRegexProgram } from './compile-regex-program.js';
import { readRegexProgram, runRegexProgram } from './run-regex-program.js';

describe('readRegexProgram', () => {
  const heavy = compileRegexProgram(`${'.*a'.repeat(300)}[YZ]`, '');

  it('spends its budget by the states it carries, and stops short of the text when it runs out', () => {
    const budget = { steps: 100_000 };
    expect(readRegexProgram(heavy, 'a'.repeat(10_000), budget)).toBeUndefined();
    expect(budget.steps).toBeLessThan(0);
    // What is left is spent at once: a second pattern of the same call is not read either.
    expect(readRegexProgram(heavy, 'a'.repeat(100), budget)).toBeUndefined();
  });

  it('counts a lookahead\'s work too, and reads correctly again after one was stopped', () => {
    const look = compileRegexProgram(`(?=${'.*a'.repeat(300)}[YZ])x`, '');
    const budget = { steps: 100_000 };
    expect(readRegexProgram(look, 'ax'.repeat(5000), budget)).toBeUndefined();
    expect(budget.steps).toBeLessThan(0);
    expect(readRegexProgram(look, `${'a'.repeat(300)}xZ`, { steps: Infinity })).toBe(false);
    expect(readRegexProgram(look, `x${'a'.repeat(300)}Z`, { steps: Infinity })).toBe(true);
  });

  it('counts each text it reads, even one answered by what every match must hold', () => {
    const budget = { steps: 25_000 };
    const prefix = compileRegexProgram('"command":"rm0 ', '');
    expect(readRegexProgram(prefix, 'x'.repeat(10_000), budget)).toBe(false);
    expect(budget.steps).toBe(15_000);
    expect(readRegexProgram(prefix, 'x'.repeat(10_000), budget)).toBe(false);
    expect(readRegexProgram(prefix, 'x'.repeat(10_000), budget)).toBeUndefined();
  });

  it('answers as runRegexProgram does within its budget, and spends about the text times the live states', () => {
    const budget = { steps: 1_000_000 };
    const simple = compileRegexProgram('rm -rf', '');
    expect(readRegexProgram(simple, `${'x'.repeat(1000)}rm -rf /`, budget)).toBe(true);
    expect(readRegexProgram(simple, 'x'.repeat(1000), budget)).toBe(false);
    expect(runRegexProgram(simple, 'x'.repeat(1000))).toBe(false);
    expect(1_000_000 - budget.steps).toBeLessThan(20_000);
  });
});
