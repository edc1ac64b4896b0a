import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChainHead } from '../../journal/sqlite/chain-types.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { recordFile } from './state-record.js';

/**
 * The places a journal is kept at most: a copy of a workspace is the same
 * journal in two places, each going its own way. Past it, places whose file
 * is gone are dropped first, then the ones recorded longest ago.
 */
const MAX_PLACES = 64;

/** Where a journal of this user's lies, and the row it last ended on there. */
export interface RecordedHead extends ChainHead {
  readonly path: string;
}

/**
 * The journals this user's toolgate made or the user adopted, in
 * `journals.json` in `home`'s toolgate folder: for each, by its id's digest,
 * the places it lies (a moved workspace keeps its journal; a copied one has
 * two, each going on from the same rows) and the last row its toolgate saw
 * it end on at each, at every open, close and compaction. The id alone
 * vouches for nothing, since any file can carry one: the row does, as no
 * file holds it but the journal that wrote it.
 */
export interface JournalRecord {
  /** The rows journal `id` last ended on at each place, the latest first; none for a journal it neither made nor adopted. */
  headsOf(id: string): readonly RecordedHead[];
  /**
   * Record journal `id` at `file`, ending on `head`: a place holds one
   * journal, so another's record there goes. Row 0 records a journal this
   * user's toolgate is making (`makingAt`).
   */
  remember(file: string, id: string, head: ChainHead): void;
  /** Whether the journal last recorded at `file` is one this user's toolgate began to make and did not finish (it recorded no row yet). */
  makingAt(file: string): boolean;
  /** See `RecordFile.exclusively`: a journal is made and recorded in here. */
  exclusively<T>(action: () => T): T;
}

export function journalRecord(config: ResolvedConfig, home: string): JournalRecord {
  const record = recordFile(config, home, 'journals.json');
  return {
    headsOf: (id) => headsIn(record.read()[digest(id)]),
    remember: (file, id, head) => {
      const path = resolve(file);
      // Recorded so already (a journal opened as it was closed): nothing to rewrite, and no other journal's there since.
      const latest = headsIn(record.read()[digest(id)])[0];
      if (latest?.path === path && latest.seq === head.seq && latest.hash === head.hash) return;
      record.rewrite((entries) => {
        for (const [key, entry] of Object.entries(entries)) {
          const kept = headsIn(entry).filter((place) => place.path !== path);
          if (kept.length === 0) delete entries[key];
          else entries[key] = kept;
        }
        const places = [{ path, seq: head.seq, hash: head.hash }, ...headsIn(entries[digest(id)])];
        entries[digest(id)] = places.length <= MAX_PLACES ? places : [...places.filter((place) => existsSync(place.path)), ...places.filter((place) => !existsSync(place.path))].slice(0, MAX_PLACES);
      });
    },
    makingAt: (file) => Object.values(record.read()).some((entry) => headsIn(entry).some((place) => place.path === resolve(file) && place.seq === 0)),
    exclusively: (action) => record.exclusively(action),
  };
}

/** An entry's places; none of what is no entry this record writes (fails closed). */
function headsIn(entry: unknown): RecordedHead[] {
  if (!Array.isArray(entry)) return [];
  return entry.filter((place): place is RecordedHead => {
    if (typeof place !== 'object' || place === null) return false;
    const { path, seq, hash } = place as Record<string, unknown>;
    return typeof path === 'string' && Number.isSafeInteger(seq) && (seq as number) >= 0 && typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash);
  });
}

function digest(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
