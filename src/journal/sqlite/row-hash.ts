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
  return nodeSha256(prevHash + (canonicalColumns(table, seq, fields) ?? canonicalRow(table, seq, fields)));
}

function canonicalRow(table: ChainedTable, seq: number, fields: RowFields): string {
  const canonical: Record<string, string | number | null | undefined> = { ...fields, table, seq };
  if (KEY_ID_HASHED_WHEN_SET.has(table) && canonical.key_id === null) canonical.key_id = undefined;
  return canonicalJson(canonical);
}

/** Each table's canonical members in canonical (sorted) order: its hashed columns, `table` and `seq`. */
const CANONICAL_ORDER = new Map(CHAINED_TABLES.map((table) => [table, [...HASHED_COLUMNS[table], 'table', 'seq'].sort()]));

/**
 * The canonical row, written directly when `fields` holds exactly the
 * table's hashed columns (every row the journal appends or reads back), as
 * `canonicalJson` writes it, without building the object and sorting its
 * keys per row; undefined for any other shape, which `canonicalRow` encodes.
 * Every row is hashed on append and on every `verify()`.
 */
function canonicalColumns(table: ChainedTable, seq: number, fields: RowFields): string | undefined {
  const columns = HASHED_COLUMNS[table];
  if (Object.keys(fields).length !== columns.length) return undefined;
  let text = '{';
  for (const name of CANONICAL_ORDER.get(table) ?? []) {
    const value = name === 'table' ? table : name === 'seq' ? seq : fields[name];
    if (value === undefined) return undefined;
    if (value === null && name === 'key_id' && KEY_ID_HASHED_WHEN_SET.has(table)) continue;
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('A non-finite number has no canonical JSON form.');
    text += `${text.length === 1 ? '' : ','}"${name}":${JSON.stringify(value)}`;
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
