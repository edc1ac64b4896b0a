import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../core/internal.js';
import { hashColumnValues, hashRow, legacyRowHash, rowHashMatches } from './row-hash.js';
import { CHAINED_TABLES, HASHED_COLUMNS, KEY_ID_HASHED_WHEN_SET, type ChainedTable } from './schema.js';

type Fields = Record<string, string | number | null>;

/** The canonical JSON of a row with its table and number, as the chain defines it. */
function canonical(table: ChainedTable, seq: number, fields: Fields): string {
  const row: Record<string, unknown> = { ...fields, table, seq };
  if (KEY_ID_HASHED_WHEN_SET.has(table) && row.key_id === null) row.key_id = undefined;
  return canonicalJson(row);
}

/** Rows written before: SHA-256 of the previous hash and the canonical JSON of the whole row. */
function legacyReference(prevHash: string, table: ChainedTable, seq: number, fields: Fields): string {
  return createHash('sha256').update(prevHash).update(canonical(table, seq, fields)).digest('hex');
}

/** Rows written now: the canonical JSON without the body, a line break, the body as stored; a body that is not well-formed text as before. */
function reference(prevHash: string, table: ChainedTable, seq: number, fields: Fields): string {
  const body = fields.body;
  if (typeof body !== 'string' || !body.isWellFormed()) return legacyReference(prevHash, table, seq, fields);
  const rest = Object.fromEntries(Object.entries(fields).filter(([name]) => name !== 'body'));
  return createHash('sha256').update(prevHash).update(`${canonical(table, seq, rest)}\n${body}`).digest('hex');
}

/** Text rich in what JSON and the canonical form are made of, so rows that read almost alike are tried. */
const syntax = fc.string({ unit: fc.constantFrom('\n', '"', '\\', '{', '}', ':', ',', 'a', 'body', 'type', '"body":', '}\n{') });
const value = fc.oneof(fc.string({ unit: 'binary' }), fc.string(), syntax, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null));
const row = fc.record({ table: fc.constantFrom(...CHAINED_TABLES), seq: fc.nat(), values: fc.array(value, { minLength: 8, maxLength: 8 }) });
const fieldsOf = (table: ChainedTable, values: readonly (string | number | null | undefined)[]): Fields =>
  Object.fromEntries(HASHED_COLUMNS[table].map((column, index) => [column, values[index] ?? null]));

describe('hashRow', () => {
  it('hashes every table’s rows as the canonical JSON without the body, a line break and the body: any text (escapes, lone surrogates), numbers, NULLs', () => {
    fc.assert(
      fc.property(row, ({ table, seq, values }) => {
        const fields = fieldsOf(table, values);
        expect(hashRow('a'.repeat(64), table, seq, fields)).toBe(reference('a'.repeat(64), table, seq, fields));
        expect(legacyRowHash('a'.repeat(64), table, seq, fields)).toBe(legacyReference('a'.repeat(64), table, seq, fields));
      }),
      { numRuns: 1000 },
    );
  });

  it('hashes a row given as its column values in order exactly as the same row given as fields', () => {
    fc.assert(
      fc.property(row, ({ table, seq, values }) => {
        const columnValues = HASHED_COLUMNS[table].map((_, index) => values[index] ?? null);
        expect(hashColumnValues('d'.repeat(64), table, seq, columnValues)).toBe(reference('d'.repeat(64), table, seq, fieldsOf(table, columnValues)));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives two different rows different hashes, in either form and across the two', () => {
    fc.assert(
      fc.property(row, row, (left, right) => {
        const leftFields = fieldsOf(left.table, left.values);
        const rightFields = fieldsOf(right.table, right.values);
        fc.pre(left.table !== right.table || left.seq !== right.seq || canonicalJson(leftFields) !== canonicalJson(rightFields));
        const hashes = (table: ChainedTable, seq: number, fields: Fields): string[] => [hashRow('e'.repeat(64), table, seq, fields), legacyRowHash('e'.repeat(64), table, seq, fields)];
        const [leftNow, leftBefore] = hashes(left.table, left.seq, leftFields);
        for (const other of hashes(right.table, right.seq, rightFields)) {
          expect(other).not.toBe(leftNow);
          expect(other).not.toBe(leftBefore);
        }
      }),
      { numRuns: 2000 },
    );
    // Text moved across the line break, or out of the body into another column, reads as another row.
    const base = { at: 1, type: 'note', body: '{"a":1}', key_id: null };
    const moved = [
      { ...base, type: 'note"}\n{"a":1', body: '' },
      { ...base, type: 'note', body: '{"a":1}\n' },
      { ...base, body: `{"at":1,"seq":3,"table":"events","type":"note"}\n{"a":1}` },
    ];
    for (const fields of moved) expect(hashRow('f'.repeat(64), 'events', 3, fields)).not.toBe(hashRow('f'.repeat(64), 'events', 3, base));
  });

  it('takes a row hashed the way rows were written before the body followed the canonical part, and nothing else', () => {
    const fields = { at: 1, claim_id: 'c1', key: 'act:c1', state: 'claimed', body: '{"tool":"bump"}', key_id: null };
    const before = legacyReference('1'.repeat(64), 'claims', 7, fields);
    expect(hashRow('1'.repeat(64), 'claims', 7, fields)).not.toBe(before);
    expect(rowHashMatches(before, '1'.repeat(64), 'claims', 7, fields)).toBe(true);
    expect(rowHashMatches(hashRow('1'.repeat(64), 'claims', 7, fields), '1'.repeat(64), 'claims', 7, fields)).toBe(true);
    expect(rowHashMatches(before, '1'.repeat(64), 'claims', 7, { ...fields, body: '{"tool":"other"}' })).toBe(false);
    expect(rowHashMatches(before, '1'.repeat(64), 'claims', 8, fields)).toBe(false);
  });

  it('hashes a row of any other shape the same way (a column missing, one more)', () => {
    const fields = { at: 1, type: 'note', body: '{"a":"\\u2028"}' };
    expect(hashRow('b'.repeat(64), 'events', 3, fields)).toBe(reference('b'.repeat(64), 'events', 3, fields));
    const extra = { ...fields, key_id: null, zeta: 'z' };
    expect(hashRow('b'.repeat(64), 'events', 3, extra)).toBe(reference('b'.repeat(64), 'events', 3, extra));
    const bodiless = { at: 1, type: 'note', key_id: null };
    expect(hashRow('b'.repeat(64), 'events', 3, bodiless)).toBe(legacyReference('b'.repeat(64), 'events', 3, bodiless));
  });

  it('refuses a non-finite number, which has no canonical form', () => {
    expect(() => hashRow('c'.repeat(64), 'events', 1, { at: Number.POSITIVE_INFINITY, type: 'x', body: '{}', key_id: null })).toThrow(TypeError);
  });
});
