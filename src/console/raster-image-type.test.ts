import { describe, expect, it } from 'vitest';
import { isRasterImageType, rasterImageTypeOf } from './raster-image-type.js';

const bytes = (...parts: (string | number[])[]): Uint8Array => Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? Array.from(part, (character) => character.charCodeAt(0)) : part)));
const PNG = bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a], 'rest');

describe('rasterImageTypeOf', () => {
  it('serves each raster type whose bytes begin as its files do', () => {
    expect(rasterImageTypeOf('image/png', PNG)).toBe('image/png');
    expect(rasterImageTypeOf('image/jpeg', bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(rasterImageTypeOf('image/gif', bytes('GIF89a;'))).toBe('image/gif');
    expect(rasterImageTypeOf('image/gif', bytes('GIF87a'))).toBe('image/gif');
    expect(rasterImageTypeOf('image/webp', bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 '))).toBe('image/webp');
  });

  it('refuses a declared raster type over other bytes: HTML, SVG, another image type, too few bytes', () => {
    expect(rasterImageTypeOf('image/png', bytes('<!doctype html><script>'))).toBeUndefined();
    expect(rasterImageTypeOf('image/png', bytes('<svg xmlns="http://www.w3.org/2000/svg">'))).toBeUndefined();
    expect(rasterImageTypeOf('image/jpeg', PNG)).toBeUndefined();
    expect(rasterImageTypeOf('image/png', PNG.slice(0, 7))).toBeUndefined();
    expect(rasterImageTypeOf('image/webp', bytes('RIFF', [1, 2, 3, 4], 'WAVEfmt '))).toBeUndefined();
    expect(rasterImageTypeOf('image/png', new Uint8Array())).toBeUndefined();
  });

  it('never serves SVG, HTML or any other declared type as an image, whatever its bytes', () => {
    for (const declared of ['image/svg+xml', 'text/html', 'image/x-icon', 'image/bmp', 'IMAGE/PNG', 'image/png; charset=utf-8', 'application/octet-stream']) {
      expect(isRasterImageType(declared)).toBe(false);
      expect(rasterImageTypeOf(declared, PNG)).toBeUndefined();
    }
  });
});
