import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../core/internal.js';
import { hashColumnValues, hashRow } from './row-hash.js';
import { CHAINED_TABLES, HASHED_COLUMNS, KEY_ID_HASHED_WHEN_SET, type ChainedTable } from './schema.js';

/** The row hash as the chain defines it: SHA-256 of the previous hash and the canonical JSON of the row with its table and number. */
function reference(prevHash: string, table: ChainedTable, seq: number, fields: Record<string, string | number | null>): string {
  const canonical: Record<string, unknown> = { ...fields, table, seq };
  if (KEY_ID_HASHED_WHEN_SET.has(table) && canonical.key_id === null) canonical.key_id = undefined;
  return createHash('sha256').update(prevHash).update(canonicalJson(canonical)).digest('hex');
}

const value = fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null));

describe('hashRow', () => {
  it('hashes every table’s rows exactly as the canonical JSON of the row: any text (escapes, lone surrogates), numbers, NULLs', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHAINED_TABLES), fc.nat(), fc.array(value, { minLength: 8, maxLength: 8 }), (table, seq, values) => {
        const fields = Object.fromEntries(HASHED_COLUMNS[table].map((column, index) => [column, values[index] ?? null]));
        expect(hashRow('a'.repeat(64), table, seq, fields)).toBe(reference('a'.repeat(64), table, seq, fields));
      }),
      { numRuns: 1000 },
    );
  });

  it('hashes a row given as its column values in order exactly as the same row given as fields', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CHAINED_TABLES), fc.nat(), fc.array(value, { minLength: 8, maxLength: 8 }), (table, seq, values) => {
        const columnValues = HASHED_COLUMNS[table].map((_, index) => values[index] ?? null);
        const fields = Object.fromEntries(HASHED_COLUMNS[table].map((column, index) => [column, columnValues[index] ?? null]));
        expect(hashColumnValues('d'.repeat(64), table, seq, columnValues)).toBe(reference('d'.repeat(64), table, seq, fields));
      }),
      { numRuns: 1000 },
    );
  });

  it('hashes a row of any other shape the same way (a column missing, one more)', () => {
    const fields = { at: 1, type: 'note', body: '{"a":"\\u2028"}' };
    expect(hashRow('b'.repeat(64), 'events', 3, fields)).toBe(reference('b'.repeat(64), 'events', 3, fields));
    const extra = { ...fields, key_id: null, zeta: 'z' };
    expect(hashRow('b'.repeat(64), 'events', 3, extra)).toBe(reference('b'.repeat(64), 'events', 3, extra));
  });

  it('refuses a non-finite number, which has no canonical form', () => {
    expect(() => hashRow('c'.repeat(64), 'events', 1, { at: Number.POSITIVE_INFINITY, type: 'x', body: '{}', key_id: null })).toThrow(TypeError);
  });
});
