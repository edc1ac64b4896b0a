import type { UnresolvedClaim } from '../console-types.js';
import { api, byId, el, visible } from './dom.js';

/** Claims a crash left open: their action is refused until an operator resolves them (`toolgate audit resolve`). */
export function loadUnresolved(): void {
  void api<UnresolvedClaim[]>('/api/unresolved').then((list) => {
    const items = list.map((claim) =>
      el('li', { 'data-claim': claim.claimId, text: visible(`${new Date(claim.startedAt).toISOString()} · ${claim.toolName} · call ${claim.callId} · claim ${claim.claimId}${claim.holder ? ` · held by ${claim.holder}` : ''}`) }),
    );
    byId('unresolved-list').replaceChildren(...items);
    byId('unresolved').hidden = items.length === 0;
  });
}
