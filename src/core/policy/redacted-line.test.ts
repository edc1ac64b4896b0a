import { describe, expect, it } from 'vitest';
import { redactedLine } from './redacted-line.js';

const SECRET = 'sk-proj-Zq8vT3xW9yB2nL5mK7pR4sD1fG6hJ0aQ';

describe('redactedLine', () => {
  it('redacts before it clips: a secret that straddles the limit never leaks a prefix', () => {
    const text = `${'a'.repeat(190)} ${SECRET}`;
    const line = redactedLine(text);
    expect(line).not.toContain('sk-proj');
    expect(line.length).toBeLessThanOrEqual(201);
  });

  it('collapses whitespace to one line and clips with an ellipsis only past the limit', () => {
    expect(redactedLine('  one\n\ttwo   three \r\n')).toBe('one two three');
    expect(redactedLine('x'.repeat(200))).toBe('x'.repeat(200));
    expect(redactedLine('x'.repeat(201))).toBe(`${'x'.repeat(200)}…`);
    expect(redactedLine('abcdef', 3)).toBe('abc…');
  });
});
