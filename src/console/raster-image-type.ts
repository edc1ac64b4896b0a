/*
 * Which media the console shows as pictures. Node-free: the page reads the
 * list to decide what gets a thumbnail, the server the magic numbers to
 * decide what it serves as an image.
 */

/** The raster image types a browser decodes without running anything: never SVG (a document with scripts), never HTML. */
export const RASTER_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

export type RasterImageType = (typeof RASTER_IMAGE_TYPES)[number];

export function isRasterImageType(mediaType: string): mediaType is RasterImageType {
  return (RASTER_IMAGE_TYPES as readonly string[]).includes(mediaType);
}

const ascii = (text: string): number[] => Array.from(text, (character) => character.charCodeAt(0));

/** Each type's signature: bytes at an offset (undefined: any byte there). */
const SIGNATURES: Readonly<Record<RasterImageType, readonly (readonly (number | undefined)[])[]>> = {
  'image/png': [[0x89, ...ascii('PNG'), 0x0d, 0x0a, 0x1a, 0x0a]],
  'image/jpeg': [[0xff, 0xd8, 0xff]],
  'image/gif': [ascii('GIF87a'), ascii('GIF89a')],
  'image/webp': [[...ascii('RIFF'), undefined, undefined, undefined, undefined, ...ascii('WEBP')]],
};

/**
 * The raster type to serve `bytes` as: the declared type, only when it is
 * one of the four and the bytes begin as that type's files do. An upstream
 * declares what it likes (`image/png` over HTML); undefined means the bytes
 * are served as a download, never as an image.
 */
export function rasterImageTypeOf(declared: string, bytes: Uint8Array): RasterImageType | undefined {
  if (!isRasterImageType(declared)) return undefined;
  const matches = SIGNATURES[declared].some((signature) => signature.length <= bytes.length && signature.every((byte, index) => byte === undefined || bytes[index] === byte));
  return matches ? declared : undefined;
}
