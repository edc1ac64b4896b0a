import { describe, expect, it } from 'vitest';
import { realPathGlob } from './real-path-glob.js';

const links: Record<string, string> = { '/home-link/proj/keys': '/home/u/proj/keys', '/link/proj/secret.txt': '/w/proj/secret.txt', '/odd': '/a[1]*' };
const realPath = (path: string): string => links[path] ?? path;

describe('realPathGlob', () => {
  it('resolves the folders before the first pattern segment and keeps the rest', () => {
    expect(realPathGlob('/home-link/proj/keys/**', realPath)).toBe('/home/u/proj/keys/**');
    expect(realPathGlob('/link/proj/secret.txt', realPath)).toBe('/w/proj/secret.txt');
  });

  it('reads a real path as a name, not a pattern', () => {
    expect(realPathGlob('/odd/*.txt', realPath)).toBe('/a\\[1\\]\\*/*.txt');
  });

  it('is undefined for a relative glob or one whose folders lead where they say', () => {
    expect(realPathGlob('keys/**', realPath)).toBeUndefined();
    expect(realPathGlob('/w/**', realPath)).toBeUndefined();
  });
});
