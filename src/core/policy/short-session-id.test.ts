import { describe, expect, test } from 'vitest';
import { shortSessionId } from './short-session-id.js';

describe('shortSessionId', () => {
  test('shows the first eight characters of an id, never the whole of a longer one', () => {
    expect(shortSessionId('0f3c2a9e-1b7d-4c55-9e0a-6d2f8b1c3e47')).toBe('0f3c2a9e');
    expect(shortSessionId('abc')).toBe('abc');
  });

  test('never cuts a character in half', () => {
    expect(shortSessionId('1234567😀')).toBe('1234567');
  });
});
