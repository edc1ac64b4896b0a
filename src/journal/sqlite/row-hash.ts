import { canonicalJson } from '../../core/internal.js';
import { nodeSha256 } from '../../node/digest/node-sha256.js';
import { CHAIN_COLUMNS, CHAINED_TABLES, HASHED_COLUMNS, KEY_ID_HASHED_WHEN_SET, type ChainedTable } from './schema.js';

/** The `prev_hash` of the first row ever written. */
export const GENESIS_HASH = '0'.repeat(64);

export type RowFields = Readonly<Record<string, string | number | null>>;

/**
 * `sha256(prevHash ‖ canonicalRow)`. The canonical row names its table and
 * sequence number, so a row can be neither moved between tables nor
 * renumbered without the hash changing. The `key_id` of an event or claim is
 * left out while it is NULL (see `KEY_ID_HASHED_WHEN_SET`).
 */
export function hashRow(prevHash: string, table: ChainedTable, seq: number, fields: RowFields): string {
  const values = columnValues(table, fields);
  return nodeSha256(prevHash + (values === undefined ? canonicalRow(table, seq, fields) : canonicalColumns(table, seq, values)));
}

/**
 * `hashRow` of a row given as its hashed columns' values in `HASHED_COLUMNS`
 * order, the form the insert binds: the writer hashes every row it appends
 * without first building the row as an object.
 */
export function hashColumnValues(prevHash: string, table: ChainedTable, seq: number, values: readonly (string | number | null)[]): string {
  return nodeSha256(prevHash + canonicalColumns(table, seq, values));
}

function canonicalRow(table: ChainedTable, seq: number, fields: RowFields): string {
  const canonical: Record<string, string | number | null | undefined> = { ...fields, table, seq };
  if (KEY_ID_HASHED_WHEN_SET.has(table) && canonical.key_id === null) canonical.key_id = undefined;
  return canonicalJson(canonical);
}

/** The values of exactly the table's hashed columns, in order; undefined for a row of any other shape. */
function columnValues(table: ChainedTable, fields: RowFields): (string | number | null)[] | undefined {
  const columns = HASHED_COLUMNS[table];
  if (Object.keys(fields).length !== columns.length) return undefined;
  const values: (string | number | null)[] = [];
  for (const column of columns) {
    const value = fields[column];
    if (value === undefined) return undefined;
    values.push(value);
  }
  return values;
}

/** One member of a canonical row: its quoted name (after a comma unless first) and where its value comes from. */
interface CanonicalMember {
  readonly prefix: string;
  /** The value's index in `HASHED_COLUMNS`, or the row's table or sequence number. */
  readonly source: number | 'table' | 'seq';
  /** Left out while NULL (see `KEY_ID_HASHED_WHEN_SET`). */
  readonly omitNull: boolean;
}

/**
 * Each table's canonical members in canonical (sorted) order: its hashed
 * columns, `table` and `seq`. The first is never left out (only a NULL
 * `key_id` is, and it never sorts first), so every later member's comma is
 * part of its prefix.
 */
const CANONICAL_MEMBERS = new Map(
  CHAINED_TABLES.map((table) => {
    const columns = HASHED_COLUMNS[table];
    const names = [...columns, 'table', 'seq'].sort();
    const members = names.map((name, position): CanonicalMember => ({
      prefix: `${position === 0 ? '' : ','}${JSON.stringify(name)}:`,
      source: name === 'table' || name === 'seq' ? name : columns.indexOf(name),
      omitNull: name === 'key_id' && KEY_ID_HASHED_WHEN_SET.has(table),
    }));
    if (members[0]?.omitNull !== false) throw new Error(`the canonical row of ${table} must begin with a member that is never left out`);
    return [table, members];
  }),
);

/**
 * The canonical row written directly, as `canonicalJson` writes it, without
 * building the object and sorting its keys per row. Every row is hashed on
 * append and on every `verify()`.
 */
function canonicalColumns(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): string {
  let text = '{';
  for (const member of CANONICAL_MEMBERS.get(table) ?? []) {
    const value = member.source === 'table' ? table : member.source === 'seq' ? seq : (values[member.source] ?? null);
    if (value === null && member.omitNull) continue;
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('A non-finite number has no canonical JSON form.');
    text += member.prefix + JSON.stringify(value);
  }
  return `${text}}`;
}

/** The hashed fields of a stored row: every column but the chain's own. */
export function hashedFields(row: Readonly<Record<string, unknown>>): RowFields {
  const fields: Record<string, string | number | null> = {};
  for (const [column, value] of Object.entries(row)) {
    if (CHAIN_COLUMNS.has(column)) continue;
    fields[column] = typeof value === 'string' || typeof value === 'number' ? value : null;
  }
  return fields;
}

/**
 * Whether a stored row holds a value the journal never writes (a BLOB, a
 * 64-bit integer) in a hashed column. Such a value has no canonical form:
 * hashed as NULL it would let a forged BLOB stand where the journal wrote
 * NULL with the hash intact, so `verify()` reports the row as changed.
 */
export function holdsForeignValue(row: Readonly<Record<string, unknown>>): boolean {
  for (const [column, value] of Object.entries(row)) {
    if (!CHAIN_COLUMNS.has(column) && value !== null && typeof value !== 'string' && typeof value !== 'number') return true;
  }
  return false;
}
