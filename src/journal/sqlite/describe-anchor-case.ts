import type { JournalAnchor } from './journal-anchor.js';

/**
 * What comparing a journal with its anchor found. `matches` and `beyond`
 * pass (`beyond` fails when strict); `not-reached` goes with a chain that
 * broke before the anchored row, and fails with it.
 */
export type AnchorCase = 'matches' | 'beyond' | 'not-reached' | 'cut-tail' | 'differs' | 'replaced' | 'unvouched' | 'unsigned' | 'bad-signature';

/**
 * One sentence per case, the same for the anchor writer (which stops
 * advancing an anchor that no longer matches) and for `verify`, naming the
 * counts an operator compares.
 */
export function describeAnchorCase(found: AnchorCase, anchor: JournalAnchor, details: { readonly rows: number; readonly journalId?: string | undefined; readonly problem?: string }): string {
  switch (found) {
    case 'matches':
      return `the journal matches its anchor (${anchor.rows} rows, anchored ${new Date(anchor.at).toISOString()})`;
    case 'beyond':
      return `${details.rows - anchor.rows} rows beyond the anchor (written after it, or the anchor is stale): the anchor recorded ${anchor.rows}, the journal has ${details.rows}`;
    case 'not-reached':
      return `not compared: the chain breaks before row ${anchor.rows}, the anchored head`;
    case 'cut-tail':
      return `cut tail: the journal has ${details.rows} rows, the anchor recorded ${anchor.rows}`;
    case 'differs':
      return `the head at row ${anchor.rows} differs from the anchor (rewritten or swapped file)`;
    case 'replaced':
      return `the journal file was replaced: the anchor was taken from journal ${anchor.journal}, this file is ${details.journalId === undefined ? 'a journal with no id' : `journal ${details.journalId}`} (another journal was copied over it, or it was deleted and recreated)`;
    case 'unvouched':
      return `row ${anchor.rows} was removed by compaction and nothing the key signed vouches for it${details.problem === undefined ? '' : ` (${details.problem})`}`;
    case 'unsigned':
      return 'the anchor is not signed, but the journal is: an anchor anyone could write proves nothing';
    case 'bad-signature':
      return `the anchor's signature does not verify with the journal key${details.problem === undefined ? '' : ` (${details.problem})`}: it was forged or altered`;
  }
}
