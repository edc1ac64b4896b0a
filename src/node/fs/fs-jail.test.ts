import { describe, expect, it } from 'vitest';
import { isInside } from './fs-jail.js';

describe('isInside', () => {
  it('holds the root itself and what lies below it, never a sibling that merely shares its spelling', () => {
    expect(isInside('/work/app', '/work/app')).toBe(true);
    expect(isInside('/work/app', '/work/app/src/a.ts')).toBe(true);
    expect(isInside('/work/app', '/work/app/')).toBe(true);
    expect(isInside('/work/app', '/work/apple')).toBe(false);
    expect(isInside('/work/app', '/work/app.bak/a')).toBe(false);
    expect(isInside('/work/app', '/work/ap')).toBe(false);
    expect(isInside('/work/app', '/work')).toBe(false);
    expect(isInside('/work/app', '/other/work/app')).toBe(false);
  });

  it('a root that ends in a separator (the filesystem root) holds every absolute path', () => {
    expect(isInside('/', '/')).toBe(true);
    expect(isInside('/', '/etc/passwd')).toBe(true);
    expect(isInside('/', 'relative')).toBe(false);
  });
});
