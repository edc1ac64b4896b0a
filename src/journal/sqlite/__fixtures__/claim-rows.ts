/** Claim rows and claim receipts as the journal appends them, and the open claims as the file holds them: the open-claims mirror's tests. */
import type { ChainStore } from '../chain-store.js';

export function claimRow(store: ChainStore, claimId: string, key: string, state = 'claimed'): void {
  store.write(() => store.append('claims', { at: 1, claim_id: claimId, key, state, body: '{}' }));
}

/** An effect-tier call's receipt, naming its claim (`null`: a record-tier receipt, which names none). */
export function receiptRow(store: ChainStore, claimId: string | null, key: string): void {
  store.write(() => store.append('receipts', { at: 1, key, claim_id: claimId, run_id: null, tool: 'bump', action_digest: null, body: '{}' }));
}

/** The open claims as the file holds them, read row by row (a receipt settles the claim it names): what the mirror must agree with. */
export function openInFile(store: ChainStore): string[] {
  const latest = new Map<string, { claim_id: string; state: string }>();
  const rows = store.db
    .prepare<[], { claim_id: string; key: string; state: string }>(
      `SELECT seq, claim_id, key, state FROM claims UNION ALL SELECT seq, claim_id, key, 'receipt' FROM receipts WHERE claim_id IS NOT NULL ORDER BY seq`,
    )
    .all();
  for (const row of rows) if (row.state !== 'receipt' || latest.get(row.key)?.claim_id === row.claim_id) latest.set(row.key, row);
  return [...latest]
    .filter(([, row]) => row.state === 'claimed')
    .map(([key, row]) => `${key}=${row.claim_id}`)
    .sort();
}
