import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/internal.js';
import { CHAIN_COLUMNS, KEY_ID_HASHED_WHEN_SET, type ChainedTable } from './schema.js';

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
  const canonical: Record<string, string | number | null | undefined> = { ...fields, table, seq };
  if (KEY_ID_HASHED_WHEN_SET.has(table) && canonical.key_id === null) canonical.key_id = undefined;
  return createHash('sha256').update(prevHash).update(canonicalJson(canonical)).digest('hex');
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
