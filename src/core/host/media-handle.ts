import type { MediaHandle } from './tool-host.js';

const CONTENT_ADDRESSED = /^media:sha256:([0-9a-f]{64})$/;
const PLAIN_MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/;

/** The SHA-256 (hex) a content-addressed handle (`media:sha256:<hex>`) names; undefined for any other text. */
export function mediaDigestOf(handle: string): string | undefined {
  return CONTENT_ADDRESSED.exec(handle)?.[1];
}

/** Whether a media type is a plain `type/subtype` in lower case, with no parameter: the only form passed on. */
export function isPlainMediaType(mediaType: string): boolean {
  return PLAIN_MEDIA_TYPE.test(mediaType);
}

/**
 * The attachment as a journal records it, or undefined when it is not one
 * a replay could check: a content-addressed handle, a plain media type and a
 * size. A copy, so the tool that made it cannot change it afterwards.
 */
export function recordableAttachment(value: unknown): MediaHandle | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { handle, mediaType, bytes } = value as Partial<Record<keyof MediaHandle, unknown>>;
  if (typeof handle !== 'string' || mediaDigestOf(handle) === undefined) return undefined;
  if (typeof mediaType !== 'string' || !isPlainMediaType(mediaType)) return undefined;
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) return undefined;
  return Object.freeze({ handle, mediaType, bytes });
}

/** Whether two lists name the same attachments, in the same order. */
export function sameAttachments(left: readonly MediaHandle[], right: readonly MediaHandle[]): boolean {
  return left.length === right.length && left.every((entry, index) => entry.handle === right[index]?.handle && entry.mediaType === right[index].mediaType && entry.bytes === right[index].bytes);
}
