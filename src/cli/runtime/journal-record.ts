import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { ChainHead } from '../../journal/sqlite/chain-types.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { recordFile } from './state-record.js';

/**
 * The journals this user's toolgate made or the user adopted, in
 * `journals.json` in `home`'s toolgate folder: for each, by its id's digest
 * (a workspace moved elsewhere keeps its journal), where it was and the last
 * row its toolgate saw it end on, at each open and close. The id alone
 * vouches for nothing, since any file can carry one: the row does, as no file
 * holds it but the journal that wrote it.
 */
export interface JournalRecord {
  /** The row journal `id` last ended on when this user's toolgate had it; undefined for one it neither made nor adopted. */
  headOf(id: string): ChainHead | undefined;
  remember(file: string, id: string, head: ChainHead): void;
  /** See `RecordFile.exclusively`: a journal is made and recorded in here. */
  exclusively<T>(action: () => T): T;
}

export function journalRecord(config: ResolvedConfig, home: string): JournalRecord {
  const record = recordFile(config, home, 'journals.json');
  return {
    headOf: (id) => headIn(record.read()[digest(id)]),
    remember: (file, id, head) => record.rewrite((entries) => (entries[digest(id)] = { path: resolve(file), seq: head.seq, hash: head.hash })),
    exclusively: (action) => record.exclusively(action),
  };
}

/** An entry's head; undefined for one that is no entry this record writes (fails closed). */
function headIn(entry: unknown): ChainHead | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { seq, hash } = entry as Record<string, unknown>;
  return Number.isSafeInteger(seq) && (seq as number) >= 0 && typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash) ? { seq: seq as number, hash } : undefined;
}

function digest(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
