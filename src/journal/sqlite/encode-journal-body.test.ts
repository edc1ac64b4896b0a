import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { decodeStoredResult, encodeData, encodeStoredResult, MIN_BLOB_CHARS } from './encode-journal-body.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const settled = (value: unknown, content: string) => ({ ok: true, value, content, receipt: { id: 'r' } }) as unknown as Parameters<typeof encodeStoredResult>[0];
/** The body of a result stored inline (none of its parts long enough to go aside). */
const encodeResult = (input: object, maxValueBytes: number): string => {
  const stored = encodeStoredResult(input as Parameters<typeof encodeStoredResult>[0], maxValueBytes, sha256);
  expect(stored.blobs.size).toBe(0);
  return stored.body;
};

describe('journal body encoding', () => {
  it('does not keep a value with no JSON form (a bigint, a cycle too deep to measure), short or long, and keeps its receipt', () => {
    expect(JSON.parse(encodeResult({ ok: true, value: 1n, receipt: { id: 'r' } }, 1024))).toEqual({ ok: true, valueNotKept: true, receipt: { id: 'r' } });
    // Ten megabytes of an empty object's cycle overflow the measure's walk before they reach the limit.
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const long = { rows: Array.from({ length: 500 }, (_, index) => ({ index, text: 'row'.padEnd(20, '.') })), total: 10n };
    for (const value of [cycle, long]) {
      const stored = encodeStoredResult(settled(value, 'preview'), 10 * 1024 * 1024, sha256);
      expect(JSON.parse(stored.body)).toEqual({ ok: true, valueNotKept: true, content: 'preview', receipt: { id: 'r' } });
      expect(stored.blobs.size).toBe(0);
    }
  });

  it('keeps the attachments a result lists, by handle, beside its receipt; a result without any has no such field', () => {
    const attachments = [{ handle: `media:sha256:${'a'.repeat(64)}`, mediaType: 'image/png', bytes: 3 }];
    const encoded = encodeResult({ ok: true, value: 'shot', content: 'shot', attachments, receipt: { attachments } }, 1024);
    expect(JSON.parse(encoded)).toEqual({ ok: true, value: 'shot', content: 'shot', attachments, receipt: { attachments } });
    expect(encodeResult({ ok: true, value: 'text', content: 'text', receipt: {} }, 1024)).not.toContain('attachments');
  });

  it('keeps a value up to maxValueBytes of JSON; past it, marks it not kept and keeps the content, the error and the receipt', () => {
    const input = (value: unknown) => ({ ok: true, value, content: 'preview', receipt: { id: 'r' } });
    // "x" × 1022 is 1024 bytes of JSON.
    expect(JSON.parse(encodeResult(input('x'.repeat(1022)), 1024))).toEqual({ ok: true, value: 'x'.repeat(1022), content: 'preview', receipt: { id: 'r' } });
    const over = encodeResult(input({ content: 'x'.repeat(10_000) }), 1024);
    expect(JSON.parse(over)).toEqual({ ok: true, valueNotKept: true, content: 'preview', receipt: { id: 'r' } });
    expect(over.length).toBeLessThan(200);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    // A cycle measures as endless: it is not kept either.
    expect(JSON.parse(encodeResult(input(cycle), 1024))).toEqual({ ok: true, valueNotKept: true, content: 'preview', receipt: { id: 'r' } });
    // What toJSON writes is what is measured: 100 dates are 2.7 KB of JSON, one object 100 KB.
    const dates = Array.from({ length: 100 }, (_, index) => new Date(index * 1e9));
    expect(JSON.parse(encodeResult(input(dates), 1024))).toMatchObject({ valueNotKept: true });
    expect(JSON.parse(encodeResult(input({ big: { toJSON: () => 'z'.repeat(100_000) } }), 65_536))).toMatchObject({ valueNotKept: true });
    // Exactly the limit, in literals and members JSON leaves out: kept.
    const literals = [...Array.from({ length: 150 }, () => null), ...Array.from({ length: 51 }, () => true), false, false];
    expect(JSON.stringify({ l: literals }).length).toBe(1024);
    expect(JSON.parse(encodeResult(input({ l: literals, gone: undefined }), 1024))).toEqual({ ok: true, value: { l: literals }, content: 'preview', receipt: { id: 'r' } });
  });

  it('encodes plain data as JSON, undefined as null and a cycle as a marker', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(encodeData({ n: Number.NaN })).toBe('{"n":null}');
    expect(encodeData(undefined)).toBe('null');
    expect(encodeData(cycle)).toBe('{"$unserializable":true}');
  });

  it('stores a value or a content aside exactly when its JSON text or its text is MIN_BLOB_CHARS long, escapes counted', () => {
    // Near the line, of characters JSON escapes (a quote, a control character) or writes wide, or plain.
    const text = fc.tuple(fc.constantFrom('x', '"', '\u0001', 'é', '😀'), fc.integer({ min: 0, max: 4200 })).map(([unit, count]) => unit.repeat(Math.ceil(count / unit.length)));
    fc.assert(
      fc.property(text, text, fc.boolean(), (valueText, content, nested) => {
        const value = nested ? { text: valueText } : valueText;
        const stored = encodeStoredResult(settled(value, content), 10 * 1024 * 1024, sha256);
        const body = JSON.parse(stored.body) as Record<string, unknown>;
        expect('valueBlob' in body).toBe(JSON.stringify(value).length >= MIN_BLOB_CHARS);
        expect('contentBlob' in body).toBe(content.length >= MIN_BLOB_CHARS);
        const read = decodeStoredResult(stored.body, (digest) => stored.blobs.get(digest));
        expect(read.value).toEqual(JSON.parse(JSON.stringify(value)));
        expect(read.content).toBe(content.toWellFormed());
      }),
      { numRuns: 200 },
    );
  });

  it('writes a long result’s value as JSON once, and not at all when the call gives the text it rendered', () => {
    const value = { text: 'x'.repeat(100_000) };
    const content = 'y'.repeat(50_000);
    const stringify = vi.spyOn(JSON, 'stringify');
    const long = () => stringify.mock.results.filter((result) => typeof result.value === 'string' && result.value.length >= 100_000).length;
    try {
      const stored = encodeStoredResult(settled(value, content), 10 * 1024 * 1024, sha256);
      expect(long()).toBe(1);
      expect(stored.blobs.size).toBe(2);
      const rendered = JSON.stringify(value);
      stringify.mockClear();
      const again = encodeStoredResult({ ...settled(value, content), valueJson: rendered }, 10 * 1024 * 1024, sha256);
      expect(long()).toBe(0);
      expect(again.body).toBe(stored.body);
      expect([...again.blobs.values()]).toContain(rendered);
    } finally {
      stringify.mockRestore();
    }
  });
});
