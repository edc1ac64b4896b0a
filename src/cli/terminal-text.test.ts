import { describe, expect, it } from 'vitest';
import { terminalJson, terminalLine, terminalText } from './terminal-text.js';

const HOSTILE = [
  '\u001b[2K\r',
  '\u001b[1A',
  '\u001b]8;;https://evil.example\u0007',
  '\u001b]52;c;cm0gLXJmIH4=\u0007',
  '\u001b]0;title\u0007',
  '\u001b[?25l\u001b[?1049h',
  '\u001bP+q\u001b\\',
  '\u009b2J',
  '\u202E',
  '\u200B',
  '\b\b\b',
  '\u2028',
  String.fromCodePoint(0xe0041),
];
/** Whatever a terminal would act on or draw as something else. */
// eslint-disable-next-line no-control-regex -- these are the characters under test
const ACTS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e]|\udb40/;

describe('terminal text', () => {
  it('writes every control, escape, override and invisible character of a field out, line breaks and tabs included', () => {
    for (const attack of HOSTILE) expect(terminalLine(`ok${attack}done`)).not.toMatch(ACTS);
    expect(terminalLine('denied\r\u001b[2Kok')).toBe('denied⟨U+000D⟩⟨U+001B⟩[2Kok');
    expect(terminalLine('a\nb\tc')).toBe('a⟨U+000A⟩b⟨U+0009⟩c');
    expect(terminalLine('\u009b31m')).toBe('⟨U+009B⟩31m');
    expect(terminalLine('plain text, ünïcödé, 日本語 and 🙂')).toBe('plain text, ünïcödé, 日本語 and 🙂');
  });

  it('keeps the lines and tabs of a block and reads CRLF as a line break; a bare carriage return is written out', () => {
    expect(terminalText('one\r\ntwo\n\tthree')).toBe('one\ntwo\n\tthree');
    expect(terminalText('DENIED: sent ~/.ssh\rOK    ')).toBe('DENIED: sent ~/.ssh⟨U+000D⟩OK    ');
    expect(terminalText('line\n\u001b[1A\u001b[2Kforged')).toBe('line\n⟨U+001B⟩[1A⟨U+001B⟩[2Kforged');
    for (const attack of HOSTILE) expect(terminalText(`ok\n${attack}done`)).not.toMatch(ACTS);
    const clean = 'nothing to change\nhere';
    expect(terminalText(clean)).toBe(clean);
  });

  it('keeps JSON valid and its values raw, with what a terminal would obey escaped', () => {
    const value = { text: HOSTILE.join(''), key: { '\u202Ename': ['\u009b', 'α'] } };
    for (const space of [undefined, 2]) {
      const json = terminalJson(value, space);
      expect(json).not.toMatch(ACTS);
      expect(JSON.parse(json)).toEqual(value);
    }
    expect(terminalJson({ a: 1 }, 2)).toBe('{\n  "a": 1\n}');
    expect(terminalJson(undefined)).toBe('null');
  });
});
