import { describe, expect, it } from 'vitest';
import { inlineSchemaRefs } from './inline-schema-refs.js';

/** `d0 → {d1, d1}`, `d1 → {d2, d2}`, …: each level doubles the inlined size. */
function doublingSchema(levels: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = { [`d${levels}`]: { type: 'string' } };
  for (let level = levels - 1; level >= 0; level -= 1) {
    $defs[`d${level}`] = { type: 'object', properties: { left: { $ref: `#/$defs/d${level + 1}` }, right: { $ref: `#/$defs/d${level + 1}` } } };
  }
  return { type: 'object', $defs, properties: { root: { $ref: '#/$defs/d0' } } };
}

describe('inlineSchemaRefs', () => {
  it('inlines $defs, definitions and sibling keywords, and drops the tables', () => {
    const result = inlineSchemaRefs(
      { type: 'object', $defs: { a: { type: 'string' } }, definitions: { b: { type: 'number' } }, properties: { x: { $ref: '#/$defs/a', description: 'x' }, y: { $ref: '#/definitions/b' } } },
      { onRecursion: 'fail' },
    );
    expect(result).toEqual({ ok: true, schema: { type: 'object', properties: { x: { type: 'string', description: 'x' }, y: { type: 'number' } } } });
  });

  it('refuses asserting keywords beside a $ref (they must hold with the target, not replace it)', () => {
    const $defs = { Base: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } };
    for (const sibling of [{ properties: { role: { type: 'string' } } }, { required: ['role'] }, { type: 'object' }, { items: { type: 'string' } }, { additionalProperties: false }, { nullable: true }]) {
      const result = inlineSchemaRefs({ type: 'object', $defs, properties: { user: { $ref: '#/$defs/Base', ...sibling } } }, { onRecursion: 'fail' });
      expect(result.ok, JSON.stringify(sibling)).toBe(false);
      expect(!result.ok && result.reason).toContain(Object.keys(sibling)[0]);
    }
    // The root's own `$schema` beside a root `$ref` is an annotation.
    expect(inlineSchemaRefs({ $schema: 'https://json-schema.org/draft/2020-12/schema', $ref: '#/$defs/Base', $defs }, { onRecursion: 'fail' }).ok).toBe(true);
  });

  it('gives up past 10,000 nodes instead of exploding (a reference bomb)', () => {
    const started = performance.now();
    const result = inlineSchemaRefs(doublingSchema(40), { onRecursion: 'fail' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain('10000');
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('fails on a recursive, remote, dangling or malformed reference, or cuts recursion when asked', () => {
    const recursive = { type: 'object', properties: { self: { $ref: '#' } } };
    expect(inlineSchemaRefs(recursive, { onRecursion: 'fail' }).ok).toBe(false);
    expect(inlineSchemaRefs(recursive, { onRecursion: { type: 'object' } })).toEqual({ ok: true, schema: { type: 'object', properties: { self: { type: 'object' } } } });
    for (const $ref of ['https://example.com/s.json', '#/$defs/missing', '#/$defs/%E0%A4%A', '#/$defs/__proto__', '#/properties/a']) {
      expect(inlineSchemaRefs({ type: 'object', $defs: {}, properties: { a: { $ref } } }, { onRecursion: 'fail' }).ok, $ref).toBe(false);
    }
  });

  it('copies literal payloads (enum, const, default) without treating them as schemas', () => {
    const schema = { type: 'object', $defs: {}, properties: { a: { enum: [{ $ref: '#/nowhere' }] } } };
    expect(inlineSchemaRefs(schema, { onRecursion: 'fail' })).toEqual({ ok: true, schema: { type: 'object', properties: { a: { enum: [{ $ref: '#/nowhere' }] } } } });
  });
});
