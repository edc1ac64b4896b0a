import { describe, expect, it } from 'vitest';
import { encodeData, encodeResult } from './encode-journal-body.js';

describe('journal body encoding', () => {
  it('keeps a result whose value has no JSON form as a marker, and its receipt', () => {
    const encoded = JSON.parse(encodeResult({ ok: true, value: 1n, receipt: { id: 'r' } } as unknown as Parameters<typeof encodeResult>[0])) as Record<string, unknown>;
    expect(encoded).toEqual({ ok: true, value: { $unserializable: true }, receipt: { id: 'r' } });
  });

  it('keeps the attachments a result lists, by handle, beside its receipt; a result without any has no such field', () => {
    const attachments = [{ handle: `media:sha256:${'a'.repeat(64)}`, mediaType: 'image/png', bytes: 3 }];
    const encoded = encodeResult({ ok: true, value: 'shot', content: 'shot', attachments, receipt: { attachments } } as unknown as Parameters<typeof encodeResult>[0]);
    expect(JSON.parse(encoded)).toEqual({ ok: true, value: 'shot', content: 'shot', attachments, receipt: { attachments } });
    expect(encodeResult({ ok: true, value: 'text', content: 'text', receipt: {} } as unknown as Parameters<typeof encodeResult>[0])).not.toContain('attachments');
  });

  it('encodes plain data as JSON, undefined as null and a cycle as a marker', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(encodeData({ n: Number.NaN })).toBe('{"n":null}');
    expect(encodeData(undefined)).toBe('null');
    expect(encodeData(cycle)).toBe('{"$unserializable":true}');
  });
});
