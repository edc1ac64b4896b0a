import { describe, expect, it } from 'vitest';
import { createBearerCheck } from './bearer-token-check.js';

describe('createBearerCheck', () => {
  const authorized = createBearerCheck('s3cret');

  it('accepts exactly "Bearer <token>"', () => {
    expect(authorized('Bearer s3cret')).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['the bare token', 's3cret'],
    ['another scheme', 'Basic s3cret'],
    ['a prefix of the token', 'Bearer s3cre'],
    ['the token with more after it', 'Bearer s3cret2'],
    ['another case', 'bearer s3cret'],
    ['padding', 'Bearer s3cret '],
  ])('refuses %s', (_label, header) => {
    expect(authorized(header)).toBe(false);
  });
});
