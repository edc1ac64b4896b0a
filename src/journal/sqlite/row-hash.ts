import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/index.js';
import { CHAIN_COLUMNS, type ChainedTable } from './schema.js';

/** The `prev_hash` of the first row ever written. */
export const GENESIS_HASH = '0'.repeat(64);

export type RowFields = Readonly<Record<string, string | number | null>>;

/**
 * `sha256(prevHash ‖ canonicalRow)`. The canonical row names its table and
 * sequence number, so a row can be neither moved between tables nor
 * renumbered without the hash changing.
 */
export function hashRow(prevHash: string, table: ChainedTable, seq: number, fields: RowFields): string {
  return createHash('sha256').update(prevHash).update(canonicalJson({ ...fields, table, seq })).digest('hex');
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
