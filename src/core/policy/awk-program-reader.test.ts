import { describe, expect, it } from 'vitest';
import { readAwkProgram } from './awk-program-reader.js';

describe('readAwkProgram', () => {
  it.each([
    ['{ print $1 }'],
    ['/a|b/ { n++ } END { print n }'],
    ['{ print "x > y" }'],
    ['{ print ($1 > 2) }'],
    ['$1 == "a" || $2 == "b"'],
    ['{ x = 4 / 2 }'],
    ['{ s = s \\\n $1 }'],
  ])('reads %j as harmless', (program) => {
    expect(readAwkProgram(program)).toBeUndefined();
  });

  it.each([
    ['{ system("id") }'],
    ['{ 1system("id") }'],
    ['{ print | "sh" }'],
    ['{ print > "out" }'],
    ['{ printf "%s", $1 >> "out" }'],
    ['{ "date" | getline d }'],
    ['{ getline line < "/etc/passwd" }'],
    ['@load "ordchr"'],
  ])('reads %j as dangerous', (program) => {
    expect(readAwkProgram(program)).toBe('dangerous');
  });

  it.each([
    ['{ print $1 } # comment'],
    ['{ print "unterminated }'],
    ['{ x = y++ / 2 }'],
    ['{ print length /x/ }'],
    ['/[/]/'],
    ['{ print ) }'],
    ['{ a \\ b }'],
  ])('refuses to read %j', (program) => {
    expect(readAwkProgram(program)).toBe('unreadable');
  });
});
