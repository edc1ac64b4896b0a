import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { boundStructuredContent as boundWithJson, keepStructuredJson, STRUCTURED_CUT_MARK } from './bound-structured-content.js';
import { jsonLineParts } from './json-line-parts.js';

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** The value as it may be sent, its text aside; and that text, when kept, is the value's JSON. */
function boundStructuredContent(value: Record<string, unknown>, maxBytes: number): Record<string, unknown> | undefined {
  const bounded = boundWithJson(value, maxBytes);
  if (bounded?.json !== undefined) expect(bounded.json).toBe(JSON.stringify(bounded.value));
  return bounded?.value;
}

/** The value's shape: its keys, array lengths and leaf types, strings aside. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shapeOf(item)]));
  return typeof value;
}

describe('boundStructuredContent', () => {
  it('returns a value within the limit as it is', () => {
    const value = { content: 'x'.repeat(1000), bytes: 1000 };
    expect(boundStructuredContent(value, 4096)).toBe(value);
  });

  it('cuts a long string to fit, keeps its start and marks the cut', () => {
    const value = { content: `start ${'y'.repeat(100_000)}`, bytes: 100_006, partial: false };
    const bounded = boundStructuredContent(value, 10_000) as typeof value;
    expect(bytes(bounded)).toBeLessThanOrEqual(10_000);
    expect(bounded.content.startsWith('start yyy')).toBe(true);
    expect(bounded.content.endsWith(STRUCTURED_CUT_MARK)).toBe(true);
    expect(bounded).toMatchObject({ bytes: 100_006, partial: false });
  });

  it('cuts only the strings longer than what each may keep, all to one length', () => {
    const value = { short: 'keep me whole', stdout: 'o'.repeat(50_000), stderr: 'e'.repeat(30_000) };
    const bounded = boundStructuredContent(value, 20_000) as typeof value;
    expect(bounded.short).toBe('keep me whole');
    expect(bounded.stdout.length).toBe(bounded.stderr.length);
    expect(bytes(bounded)).toBeLessThanOrEqual(20_000);
  });

  it('counts escapes and wide characters as the bytes they are sent as', () => {
    for (const text of ['"\n'.repeat(40_000), '\u0001'.repeat(40_000), 'ü'.repeat(40_000), '日本'.repeat(20_000)]) {
      const bounded = boundStructuredContent({ text }, 8192);
      expect(bounded, JSON.stringify(text.slice(0, 2))).toBeDefined();
      expect(bytes(bounded)).toBeLessThanOrEqual(8192);
    }
  });

  it('keeps the JSON text it measured, which the stdio writer sends for that result as it would have built it', () => {
    const value = { content: 'a line of text, "quoted"\n'.repeat(2000) };
    const bounded = boundWithJson(value, 64 * 1024);
    expect(bounded?.value).toBe(value);
    expect(bounded?.json).toBe(JSON.stringify(value));
    const result = { content: [{ type: 'text', text: 'x' }], structuredContent: value };
    keepStructuredJson(result, bounded?.json ?? '');
    const message = { jsonrpc: '2.0', id: 1, result };
    const stringify = vi.spyOn(JSON, 'stringify');
    let parts: string[];
    try {
      parts = jsonLineParts(message);
      expect(stringify.mock.calls.some(([argument]) => argument === value)).toBe(false);
    } finally {
      stringify.mockRestore();
    }
    expect(parts.join('')).toBe(`${JSON.stringify(message)}\n`);
    // Another result holding the same object has no text kept: it is written as it is now.
    value.content = 'changed';
    const other = { jsonrpc: '2.0', id: 2, result: { content: [], structuredContent: value } };
    expect(jsonLineParts(other).join('')).toBe(`${JSON.stringify(other)}\n`);
  });

  it('measures a value by the text the call rendered for it, without building it again, and a cut value as cut', () => {
    const value = { content: 'a line of text, "quoted"\n'.repeat(2000) };
    const rendered = JSON.stringify(value);
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      expect(boundWithJson(value, 128 * 1024, rendered)).toEqual({ value, json: rendered });
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
    // Past the limit the rendered text still decides, and the cut value is measured as cut.
    const cut = boundWithJson(value, 8 * 1024, rendered);
    expect((cut?.value as typeof value).content.endsWith(STRUCTURED_CUT_MARK)).toBe(true);
    expect(cut?.json).toBe(JSON.stringify(cut?.value));
  });

  it('measures and cuts the text the call rendered, not the object, which may have changed since', () => {
    const rendered = JSON.stringify({ a: 'x'.repeat(5000) });
    const now = { a: 'short now' };
    const cut = boundWithJson(now, 2000, rendered);
    expect((cut?.value as { a: string }).a.startsWith('xxx')).toBe(true);
    expect((cut?.value as { a: string }).a.endsWith(STRUCTURED_CUT_MARK)).toBe(true);
    expect(Buffer.byteLength(cut?.json ?? '')).toBeLessThanOrEqual(2000);
    expect(boundWithJson(now, 8000, rendered)).toEqual({ value: now, json: rendered });
  });

  it('never splits a surrogate pair', () => {
    const bounded = boundStructuredContent({ text: '😀'.repeat(20_000) }, 4096) as { text: string };
    expect(bounded.text.replace(STRUCTURED_CUT_MARK, '').isWellFormed()).toBe(true);
  });

  it('gives up on a value that no cut brings under the limit', () => {
    const entries = Array.from({ length: 5000 }, (_, index) => ({ path: `file-${index}.txt`, kind: 'file', bytes: index }));
    expect(boundStructuredContent({ entries }, 16 * 1024)).toBeUndefined();
  });

  it('any value: sent within the limit with its shape kept, or not at all', () => {
    const leaf = fc.oneof(fc.string({ maxLength: 4000, unit: 'grapheme' }), fc.integer(), fc.boolean(), fc.constant(null));
    const value = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(leaf, fc.array(leaf, { maxLength: 20 }), fc.dictionary(fc.string({ maxLength: 8 }), leaf)));
    fc.assert(
      fc.property(value, fc.integer({ min: 512, max: 20_000 }), (input, limit) => {
        const bounded = boundStructuredContent(input, limit);
        if (bounded === undefined) return;
        expect(bytes(bounded)).toBeLessThanOrEqual(limit);
        expect(shapeOf(bounded)).toEqual(shapeOf(input));
      }),
      { numRuns: 300 },
    );
  });
});
