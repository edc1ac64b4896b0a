import type { LiveCall } from '../console-types.js';
import { byId, dur, el, time, visible } from './dom.js';
import { openReceipt } from './load-receipts.js';
import { showView } from './show-view.js';

const calls = new Map<string, { row: HTMLTableRowElement; data: LiveCall }>();

/** Add a live call's row, or update it as the call moves on (requested, awaiting approval, done). */
export function renderCall(call: LiveCall): void {
  const previous = calls.get(call.callId);
  const merged: LiveCall = { ...previous?.data, ...call };
  const row = previous ? previous.row : el('tr', { 'data-call': call.callId });
  row.replaceChildren(
    el('td', { text: time(merged.at) }),
    // The name a client asked for is shown even when no tool has it: written out like everything a model chose.
    el('td', { text: visible(merged.tool) }),
    el('td', { text: visible(merged.agent || '—') }),
    el('td', { text: merged.decision || '' }),
    el('td', { text: dur(merged.durationMs) }),
    el('td', {}, el('span', { class: `status ${merged.status}`, text: merged.status + (merged.code && merged.code !== 'OK' ? ` · ${merged.code}` : '') })),
  );
  const invocationId = merged.invocationId;
  if (invocationId) {
    row.onclick = () => {
      showView('receipts');
      openReceipt(invocationId);
    };
  }
  if (!previous) byId('calls').prepend(row);
  calls.set(call.callId, { row, data: merged });
  byId('calls-empty').hidden = calls.size > 0;
}
