import { describe, expect, it } from 'vitest';
import { isPlainMediaType, mediaDigestOf, recordableAttachment, sameAttachments } from './media-handle.js';

const digest = 'c'.repeat(64);
const attachment = { handle: `media:sha256:${digest}`, mediaType: 'image/png', bytes: 3 };

describe('media handles', () => {
  it('reads the digest of a content-addressed handle only', () => {
    expect(mediaDigestOf(attachment.handle)).toBe(digest);
    for (const handle of [`media:sha256:${digest.toUpperCase()}`, `media:sha256:${digest}\n`, `media:sha256:${digest}0`, 'media:fake:3', `x media:sha256:${digest}`]) expect(mediaDigestOf(handle)).toBeUndefined();
  });

  it('takes a plain lower-case type/subtype, nothing with a parameter, a line break or a quote', () => {
    expect(isPlainMediaType('image/svg+xml')).toBe(true);
    for (const type of ['IMAGE/PNG', 'image/png; charset=x', 'image/png\r\nX: 1', 'image/"png"', 'image', '/png']) expect(isPlainMediaType(type), type).toBe(false);
  });

  it('copies what a journal can record and a replay can check, and nothing else', () => {
    const copy = recordableAttachment({ ...attachment, extra: 'dropped' });
    expect(copy).toEqual(attachment);
    expect(Object.isFrozen(copy)).toBe(true);
    for (const value of [null, 'media', { ...attachment, handle: 'media:fake:3' }, { ...attachment, mediaType: 'text/html; x' }, { ...attachment, bytes: 1.5 }, { ...attachment, bytes: -1 }, { ...attachment, bytes: '3' }]) {
      expect(recordableAttachment(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it('compares lists by handle, type and size, in order', () => {
    const other = { ...attachment, handle: `media:sha256:${'d'.repeat(64)}` };
    expect(sameAttachments([attachment, other], [{ ...attachment }, { ...other }])).toBe(true);
    expect(sameAttachments([attachment, other], [other, attachment])).toBe(false);
    expect(sameAttachments([attachment], [{ ...attachment, bytes: 4 }])).toBe(false);
    expect(sameAttachments([attachment], [{ ...attachment, mediaType: 'image/gif' }])).toBe(false);
    expect(sameAttachments([attachment], [])).toBe(false);
  });
});
