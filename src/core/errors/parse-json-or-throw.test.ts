import { describe, expect, it } from 'vitest';
import { parseJsonOrThrow } from './parse-json-or-throw.js';
import { ConfigurationError } from './tool-errors.js';

const failure = () => new ConfigurationError('settings', 'is not valid JSON');

describe('parseJsonOrThrow', () => {
  it('returns the parsed value, whatever JSON it is', () => {
    expect(parseJsonOrThrow('{"rules":[1]}', failure)).toEqual({ rules: [1] });
    expect(parseJsonOrThrow('null', failure)).toBeNull();
    expect(parseJsonOrThrow(' "text" ', failure)).toBe('text');
  });

  it.each(['', '{', '{"a": 1,}', "{'a': 1}", 'undefined', '{"a":1} trailing'])('throws the caller\'s typed error for %j', (text) => {
    expect(() => parseJsonOrThrow(text, failure)).toThrow(ConfigurationError);
  });

  it('never passes on the parser\'s message, which would quote the text', () => {
    let caught: unknown;
    try {
      parseJsonOrThrow('{"token": hunter2', failure);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    expect(String((caught as Error).message)).not.toContain('hunter2');
    expect((caught as Error).cause).toBeUndefined();
  });
});
