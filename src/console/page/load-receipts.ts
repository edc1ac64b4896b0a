import type { ReceiptDetail, ToolReceipt } from '../console-types.js';
import { api, byId, dur, el, time } from './dom.js';

export function loadReceipts(): void {
  const form = new FormData(byId<HTMLFormElement>('receipt-filter'));
  const query = new URLSearchParams();
  for (const k of ['tool', 'status', 'agent']) {
    const value = form.get(k);
    if (typeof value === 'string' && value) query.set(k, value);
  }
  const since = form.get('since');
  if (since) query.set('since', String(Date.now() - Number(since)));
  void api<ToolReceipt[]>(`/api/receipts?${query.toString()}`).then((list) => {
    byId('receipts').replaceChildren(
      ...list.map((r) =>
        el(
          'tr',
          { 'data-receipt': r.invocationId, onclick: () => openReceipt(r.invocationId) },
          el('td', { text: time(r.startedAt) }),
          el('td', { text: r.tool }),
          el('td', { text: r.agent || '—' }),
          el('td', {}, el('span', { class: `status ${r.status}`, text: r.status })),
          el('td', { text: r.code }),
          el('td', { text: dur(r.durationMs) }),
          el('td', { text: r.outputSummary }),
        ),
      ),
    );
  });
}

export function openReceipt(id: string): void {
  void api<ReceiptDetail | undefined>(`/api/receipts/${encodeURIComponent(id)}`).then((d) => {
    const box = byId('receipt-detail');
    if (!d || !d.receipt) {
      box.hidden = true;
      return;
    }
    const r = d.receipt;
    const dl = el('dl');
    const row = (k: string, v: string | undefined): void => {
      dl.appendChild(el('dt', { text: k }));
      dl.appendChild(el('dd', { text: v ?? '—' }));
    };
    row('invocation', r.invocationId);
    row('tool', r.tool + (r.version ? `@${r.version}` : ''));
    row('agent', r.agent);
    row('status', `${r.status} · ${r.code}`);
    row('started', new Date(r.startedAt).toISOString());
    row('duration', dur(r.durationMs));
    row('risk / tier', `${r.risk} / ${r.tier}`);
    row('decision', `${r.policy.decision} (policy v${String(r.policy.version)})`);
    row('approval', r.approval.outcome + (r.approval.how ? ` via ${r.approval.how}` : ''));
    row('input digest', r.inputDigest);
    row('action digest', r.actionDigest);
    row('chain position', d.chain ? `#${d.chain.position} ${d.chain.hash}` : 'not journaled');
    box.replaceChildren(
      el('h3', { text: 'Receipt' }),
      dl,
      el('h4', { text: 'Arguments (redacted)' }),
      el('pre', { text: JSON.stringify(r.arguments, null, 2) }),
      el('h4', { text: 'Decision trace' }),
      el('pre', { text: JSON.stringify(d.explanation || r.policy.rules, null, 2) }),
      el('h4', { text: 'Output summary' }),
      el('pre', { text: r.outputSummary }),
    );
    box.hidden = false;
  });
}
