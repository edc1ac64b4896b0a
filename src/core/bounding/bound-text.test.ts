import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundText, DEFAULT_TOOL_RESULT_LIMITS, fitsWithoutEncoding, truncationMarker } from './bound-text.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const bytesOf = (text: string): number => encoder.encode(text).length;
const linesOf = (text: string): number => (text.length === 0 ? 0 : text.split('\n').length);

/** Text mixing ASCII, newlines, 2-, 3- and 4-byte characters. */
const mixedText = fc
  .array(fc.constantFrom('a', 'b', '\n', 'é', '€', '中', '😀', '𝄞', ' '), { maxLength: 400 })
  .map((parts) => parts.join(''));
const limits = fc.record({ maxBytes: fc.integer({ min: 1, max: 200 }), maxLines: fc.integer({ min: 1, max: 40 }) });

describe('boundText', () => {
  it('property: the preview is a prefix, valid UTF-8, within both limits, and truncated iff the text did not fit', () => {
    fc.assert(
      fc.property(mixedText, limits, (text, limit) => {
        const bounded = boundText(text, limit);
        expect(text.startsWith(bounded.preview)).toBe(true);
        const bytes = encoder.encode(bounded.preview);
        expect(() => decoder.decode(bytes)).not.toThrow();
        expect(bytes.length).toBe(bounded.previewBytes);
        expect(bounded.previewBytes).toBeLessThanOrEqual(limit.maxBytes);
        expect(linesOf(bounded.preview)).toBeLessThanOrEqual(limit.maxLines);
        const fits = bytesOf(text) <= limit.maxBytes && linesOf(text) <= limit.maxLines;
        expect(bounded.truncated).toBe(!fits);
        if (!fits) expect(bounded.previewLines).toBe(linesOf(bounded.preview));
      }),
      { numRuns: 1000 },
    );
  });

  it('property: never splits a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 1, max: 64 }), (text, maxBytes) => {
        const { preview } = boundText(text, { maxBytes, maxLines: 10_000 });
        const last = preview.charCodeAt(preview.length - 1);
        expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
      }),
      { numRuns: 500 },
    );
    // A 4-byte character straddling the cut is dropped whole.
    expect(boundText('abc😀', { maxBytes: 5, maxLines: 10 }).preview).toBe('abc');
    expect(boundText('abc😀', { maxBytes: 7, maxLines: 10 }).preview).toBe('abc😀');
  });

  it('cuts by lines before bytes', () => {
    const bounded = boundText('one\ntwo\nthree\nfour', { maxBytes: 1000, maxLines: 2 });
    expect(bounded).toMatchObject({ preview: 'one\ntwo', truncated: true, previewLines: 2 });
  });

  it('the marker appears iff the text was truncated, and says whether it was stored', () => {
    const fitting = boundText('short', DEFAULT_TOOL_RESULT_LIMITS);
    expect(fitting.truncated).toBe(false);
    const cut = boundText('x'.repeat(100), { maxBytes: 10, maxLines: 5 });
    expect(truncationMarker(cut, 100, undefined)).toMatch(/truncated.*not stored/);
    expect(truncationMarker(cut, 100, { handle: 'spill:1', bytes: 100 })).toContain('spill:1');
  });

  it('defaults to 32 KiB and 2,000 lines, and bounds 10 MB without encoding it', () => {
    expect(DEFAULT_TOOL_RESULT_LIMITS).toEqual({ maxBytes: 32 * 1024, maxLines: 2000 });
    const huge = 'é'.repeat(5 * 1024 * 1024);
    const bounded = boundText(huge, DEFAULT_TOOL_RESULT_LIMITS);
    expect(bounded.previewBytes).toBe(32 * 1024);
    expect(bounded.preview.length).toBe(16 * 1024);
  });
});

describe('fitsWithoutEncoding', () => {
  it('property: it never says a text fits that boundText would cut, nor the reverse; it says nothing when the bytes might not fit', () => {
    fc.assert(
      fc.property(mixedText, limits, (text, limit) => {
        const fits = fitsWithoutEncoding(text, limit);
        if (text.length * 3 > limit.maxBytes) expect(fits).toBeUndefined();
        else expect(fits).toBe(!boundText(text, limit).truncated);
      }),
      { numRuns: 500 },
    );
    const manyLines = fc.array(fc.constantFrom('a', '\n', '\n', '\n', 'é'), { maxLength: 120 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(manyLines, fc.integer({ min: 1, max: 60 }), (text, maxLines) => {
        const limit = { maxBytes: 1000, maxLines };
        expect(fitsWithoutEncoding(text, limit)).toBe(linesOf(text) <= maxLines);
      }),
      { numRuns: 1000 },
    );
  });

  it('counts lines at the limit exactly: maxLines lines fit, one more does not, whatever the spelling of the rest', () => {
    const limit = { maxBytes: 1024, maxLines: 3 };
    expect(fitsWithoutEncoding('a\nb\nc', limit)).toBe(true);
    expect(fitsWithoutEncoding('a\nb\nc\n', limit)).toBe(false);
    expect(fitsWithoutEncoding('\n\n\n', limit)).toBe(false);
    expect(fitsWithoutEncoding('a\r\nb\r\nc', limit)).toBe(true);
    expect(fitsWithoutEncoding('😀'.repeat(170), limit)).toBe(true);
    // Long lines settle the count early; newlines packed at the end still count.
    expect(fitsWithoutEncoding(`${'x'.repeat(300)}\n\n\n`, limit)).toBe(false);
    expect(fitsWithoutEncoding(`${'x'.repeat(300)}\n\n`, limit)).toBe(true);
    expect(fitsWithoutEncoding(`\n\n${'x'.repeat(300)}\n`, limit)).toBe(false);
    expect(fitsWithoutEncoding('😀'.repeat(170) + 'xx', limit)).toBeUndefined();
  });
});
