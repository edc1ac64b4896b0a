import { join } from 'node:path';
import { sweepRetention } from '../../journal/sqlite/index.js';
import type { Gateway } from './open-gateway.js';
import { rememberJournalHead } from './vouch-journal.js';

const DAY_MS = 86_400_000;
/** How often a long-running gateway applies retention again. */
export const RETENTION_INTERVAL_MS = 60 * 60_000;

export interface RetentionRun {
  /** Journal rows deleted behind the new checkpoint. */
  readonly compactedRows: number;
  /** Spill folders and media files removed. */
  readonly removed: number;
  readonly freedBytes: number;
}

/**
 * `journal.retentionDays`: the journal's prefix older than that is compacted
 * (behind a checkpoint that `verify` starts from; never past an unresolved
 * claim), and spills and media older than that are removed. Applied once at
 * start-up and then every hour while the gateway runs. Compaction verifies
 * the chain first and refuses one that does not verify; the sweep runs
 * anyway. A failure is reported and retried at the next run; it never stops
 * the gateway.
 * Returns the stop function, or undefined when no retention is configured.
 */
export function startRetention(gateway: Gateway, report: (outcome: RetentionRun | Error) => void): (() => void) | undefined {
  const days = gateway.config.journal.retentionDays;
  if (days === undefined) return undefined;
  const retentionMs = days * DAY_MS;
  // Two independent jobs: a journal that will not compact (it does not verify) must not keep old spills forever.
  const apply = async (): Promise<void> => {
    const now = Date.now();
    let compactedRows = 0;
    try {
      const compacted = await gateway.journal.compact({ before: now - retentionMs });
      compactedRows = Object.values(compacted.removed).reduce((sum, rows) => sum + rows, 0);
      // The row the journal was recorded by may be among those taken out: it is recorded by its new last row.
      if (compactedRows > 0) rememberJournalHead(gateway.config, gateway.journal);
    } catch (error) {
      report(error instanceof Error ? error : new Error(String(error)));
    }
    try {
      const swept = sweepRetention({
        now,
        retentionMs,
        directories: [
          { path: join(gateway.spillDir, 'runs'), layout: 'runs' },
          { path: join(gateway.spillDir, 'media'), layout: 'files' },
        ],
      });
      report({ compactedRows, removed: swept.removed.length, freedBytes: swept.freedBytes });
    } catch (error) {
      report(error instanceof Error ? error : new Error(String(error)));
    }
  };
  void apply();
  const timer = setInterval(() => void apply(), RETENTION_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
