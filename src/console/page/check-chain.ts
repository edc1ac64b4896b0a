import type { JournalVerifyResult } from '../console-types.js';
import { api, byId } from './dom.js';

/** The header's chip: whether the journal's hash chain still verifies. */
export function checkChain(): void {
  void api<JournalVerifyResult>('/api/verify').then((v) => {
    const chip = byId('chain');
    const broken = v.firstBadRow?.table === 'anchor' ? 'journal does not match its anchor' : `chain broken at ${v.firstBadRow ? `${v.firstBadRow.table} #${v.firstBadRow.id}` : '?'}`;
    chip.textContent = v.ok ? `chain verified · ${v.rows} rows` : broken;
    chip.className = `chip ${v.ok ? 'ok' : 'bad'}`;
  });
}
