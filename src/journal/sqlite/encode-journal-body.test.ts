import { describe, expect, it } from 'vitest';
import { encodeData, encodeResult } from './encode-journal-body.js';

describe('journal body encoding', () => {
  it('keeps a result whose value has no JSON form as a marker, and its receipt', () => {
    const encoded = JSON.parse(encodeResult({ ok: true, value: 1n, receipt: { id: 'r' } } as unknown as Parameters<typeof encodeResult>[0], 1024)) as Record<string, unknown>;
    expect(encoded).toEqual({ ok: true, value: { $unserializable: true }, receipt: { id: 'r' } });
  });

  it('keeps the attachments a result lists, by handle, beside its receipt; a result without any has no such field', () => {
    const attachments = [{ handle: `media:sha256:${'a'.repeat(64)}`, mediaType: 'image/png', bytes: 3 }];
    const encoded = encodeResult({ ok: true, value: 'shot', content: 'shot', attachments, receipt: { attachments } } as unknown as Parameters<typeof encodeResult>[0], 1024);
    expect(JSON.parse(encoded)).toEqual({ ok: true, value: 'shot', content: 'shot', attachments, receipt: { attachments } });
    expect(encodeResult({ ok: true, value: 'text', content: 'text', receipt: {} } as unknown as Parameters<typeof encodeResult>[0], 1024)).not.toContain('attachments');
  });

  it('keeps a value up to maxValueBytes of JSON; past it, marks it not kept and keeps the content, the error and the receipt', () => {
    const input = (value: unknown) => ({ ok: true, value, content: 'preview', receipt: { id: 'r' } }) as unknown as Parameters<typeof encodeResult>[0];
    // "x" × 1022 is 1024 bytes of JSON.
    expect(JSON.parse(encodeResult(input('x'.repeat(1022)), 1024))).toEqual({ ok: true, value: 'x'.repeat(1022), content: 'preview', receipt: { id: 'r' } });
    const over = encodeResult(input({ content: 'x'.repeat(10_000) }), 1024);
    expect(JSON.parse(over)).toEqual({ ok: true, valueNotKept: true, content: 'preview', receipt: { id: 'r' } });
    expect(over.length).toBeLessThan(200);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    // A cycle measures as endless: it is not kept either.
    expect(JSON.parse(encodeResult(input(cycle), 1024))).toEqual({ ok: true, valueNotKept: true, content: 'preview', receipt: { id: 'r' } });
  });

  it('encodes plain data as JSON, undefined as null and a cycle as a marker', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(encodeData({ n: Number.NaN })).toBe('{"n":null}');
    expect(encodeData(undefined)).toBe('null');
    expect(encodeData(cycle)).toBe('{"$unserializable":true}');
  });
});
