import { canonicalJson } from '../../core/internal.js';
import { nodeSha256 } from '../../node/digest/node-sha256.js';
import { CHAIN_COLUMNS, CHAINED_TABLES, HASHED_COLUMNS, KEY_ID_HASHED_WHEN_SET, type ChainedTable } from './schema.js';

/** The `prev_hash` of the first row ever written. */
export const GENESIS_HASH = '0'.repeat(64);

export type RowFields = Readonly<Record<string, string | number | null>>;

/**
 * The hash of a row as the journal writes it: `sha256(prevHash ‖ text)`,
 * where the text is the canonical JSON of the row's hashed columns, with
 * its table and sequence number, and without its body, then a line break
 * and the body as it is stored. The canonical row names its table and
 * sequence number, so a row can be neither moved between tables nor
 * renumbered without the hash changing. The `key_id` of an event or claim
 * is left out while it is NULL (see `KEY_ID_HASHED_WHEN_SET`).
 *
 * The body is already JSON text; quoting it again inside the canonical row
 * cost more than hashing it. JSON writes no raw line break, so the first one
 * ends the canonical part: no two rows read the same. A body that is not
 * well-formed text (or not text at all) has no such form, and the row is
 * hashed as rows were before, body included in the canonical JSON
 * (`legacyRowHash`), which has no raw line break either.
 */
export function hashRow(prevHash: string, table: ChainedTable, seq: number, fields: RowFields): string {
  const values = columnValues(table, fields);
  if (values !== undefined) return hashColumnValues(prevHash, table, seq, values);
  const body = fields.body;
  if (!isPlainBody(body)) return legacyRowHash(prevHash, table, seq, fields);
  const rest: Record<string, string | number | null> = { ...fields };
  delete rest.body;
  return nodeSha256(`${prevHash}${canonicalRow(table, seq, rest)}\n${body}`);
}

/**
 * `hashRow` of a row given as its hashed columns' values in `HASHED_COLUMNS`
 * order, the form the insert binds: the writer hashes every row it appends
 * without first building the row as an object.
 */
export function hashColumnValues(prevHash: string, table: ChainedTable, seq: number, values: readonly (string | number | null)[]): string {
  const members = CANONICAL_MEMBERS.get(table);
  const body = members === undefined ? undefined : values[members.body];
  if (members === undefined || !isPlainBody(body)) return legacyColumnHash(prevHash, table, seq, values);
  return nodeSha256(`${prevHash}${canonicalColumns(members.withoutBody, table, seq, values)}\n${body}`);
}

/**
 * Whether `hash` is the row's hash, as the journal writes it now or as it
 * wrote rows before the body followed the canonical part (every row written
 * then still verifies). Each form reads differently for different rows, and
 * the two never read alike (only the current one holds a raw line break), so
 * accepting either lets no changed row through.
 */
export function rowHashMatches(hash: string, prevHash: string, table: ChainedTable, seq: number, fields: RowFields): boolean {
  return hashRow(prevHash, table, seq, fields) === hash || legacyRowHash(prevHash, table, seq, fields) === hash;
}

/** The hash of rows written before the body followed the canonical part: `sha256(prevHash ‖ canonicalJson(row))`, body included. */
export function legacyRowHash(prevHash: string, table: ChainedTable, seq: number, fields: RowFields): string {
  const values = columnValues(table, fields);
  return values === undefined ? nodeSha256(prevHash + canonicalRow(table, seq, fields)) : legacyColumnHash(prevHash, table, seq, values);
}

function legacyColumnHash(prevHash: string, table: ChainedTable, seq: number, values: readonly (string | number | null)[]): string {
  const members = CANONICAL_MEMBERS.get(table);
  return nodeSha256(prevHash + canonicalColumns(members?.withBody ?? [], table, seq, values));
}

/** A body written after the canonical part as it is: text that UTF-8 encodes as it reads (no lone surrogate). */
function isPlainBody(body: string | number | null | undefined): body is string {
  return typeof body === 'string' && body.isWellFormed();
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

/** A table's canonical members, with and without its body, and where its body is among the values. */
interface TableMembers {
  readonly withBody: readonly CanonicalMember[];
  readonly withoutBody: readonly CanonicalMember[];
  readonly body: number;
}

/**
 * Each table's canonical members in canonical (sorted) order: its hashed
 * columns, `table` and `seq`. The first is never left out (only a NULL
 * `key_id` is, and it never sorts first; nor does the body), so every later
 * member's comma is part of its prefix.
 */
const CANONICAL_MEMBERS = new Map(
  CHAINED_TABLES.map((table): [ChainedTable, TableMembers] => {
    const columns = HASHED_COLUMNS[table];
    const membersOf = (names: readonly string[]): CanonicalMember[] => {
      const sorted = [...names, 'table', 'seq'].sort();
      const members = sorted.map((name, position): CanonicalMember => ({
        prefix: `${position === 0 ? '' : ','}${JSON.stringify(name)}:`,
        source: name === 'table' || name === 'seq' ? name : columns.indexOf(name),
        omitNull: name === 'key_id' && KEY_ID_HASHED_WHEN_SET.has(table),
      }));
      if (members[0]?.omitNull !== false) throw new Error(`the canonical row of ${table} must begin with a member that is never left out`);
      return members;
    };
    return [table, { withBody: membersOf(columns), withoutBody: membersOf(columns.filter((column) => column !== 'body')), body: columns.indexOf('body') }];
  }),
);

/**
 * The canonical row written directly, as `canonicalJson` writes it, without
 * building the object and sorting its keys per row. Every row is hashed on
 * append and on every `verify()`.
 */
function canonicalColumns(members: readonly CanonicalMember[], table: ChainedTable, seq: number, values: readonly (string | number | null)[]): string {
  let text = '{';
  for (const member of members) {
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
