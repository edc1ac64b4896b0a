import type { ExplainedRule, MatchedRule, PolicyExplanation } from '../../core/internal.js';
import { quoteArgv } from '../../core/action/display-action.js';
import type { ReceiptDetail, ReceiptRow, ToolReceipt } from '../console-types.js';
import { describeDecision } from '../describe-decision.js';
import { api, byId, dur, el, time, visible } from './dom.js';
import { renderAttachments } from './render-attachments.js';

const PAGE = 50;
/** Where the next page starts: the position of the last row shown. */
let oldest: number | undefined;

/** Where a call acted, in one line: the real paths, the argv, method and URL, the upstream server and tool. */
export function targetText(receipt: ToolReceipt): string {
  const t = receipt.target;
  if (t === undefined) return '';
  const parts: string[] = [];
  // Read back into the same argv: `sh -c 'a; b'` is not `sh -c a; b`, which a join with spaces made of both.
  if (t.command) parts.push(quoteArgv(t.command.argv));
  else if (t.files.length > 0) parts.push(`${t.access === 'write' ? 'writes' : 'reads'} ${t.files.map((f) => f.path).join(', ')}`);
  if (t.http) parts.push(`${t.http.method} ${t.http.url}`);
  if (t.mcp) parts.push(`${t.mcp.server} · ${t.mcp.tool ?? '?'}`);
  if (t.os) parts.push(t.os.action);
  if (t.search) parts.push(`search ${t.search.query}`);
  return visible(parts.join(' · '));
}

/** The receipts matching the filter, newest first; `more` appends the next page. */
export function loadReceipts(more = false): void {
  const form = new FormData(byId<HTMLFormElement>('receipt-filter'));
  const query = new URLSearchParams();
  for (const k of ['tool', 'status', 'agent', 'run', 'q']) {
    const value = form.get(k);
    if (typeof value === 'string' && value) query.set(k, value);
  }
  const since = form.get('since');
  if (since) query.set('since', String(Date.now() - Number(since)));
  query.set('limit', String(PAGE));
  if (more && oldest !== undefined) query.set('before', String(oldest));
  void api<ReceiptRow[]>(`/api/receipts?${query.toString()}`).then((list) => {
    const rows = list.map((r) =>
      el(
        'tr',
        { 'data-receipt': r.invocationId, onclick: () => openReceipt(r.invocationId) },
        el('td', { text: time(r.startedAt) }),
        el('td', { text: visible(r.tool) }),
        el('td', { class: 'target', text: targetText(r) }),
        el('td', { text: visible(r.agent || '—') }),
        el('td', { class: 'decision', text: describeDecision(r) }),
        el('td', {}, el('span', { class: `status ${r.status}`, text: r.status })),
        el('td', { text: visible(r.code) }),
        el('td', { class: 'run', text: visible(r.runId ?? '') }),
        el('td', { text: dur(r.durationMs) }),
        el('td', { text: visible(r.outputSummary) }),
      ),
    );
    if (more) byId('receipts').append(...rows);
    else byId('receipts').replaceChildren(...rows);
    oldest = list.at(-1)?.position ?? oldest;
    byId('receipts-older').hidden = list.length < PAGE;
  });
}

function isRuleList(explanation: PolicyExplanation | readonly MatchedRule[]): explanation is readonly MatchedRule[] {
  return Array.isArray(explanation);
}

function ruleText(rule: MatchedRule | ExplainedRule): Node[] {
  return [el('code', { text: visible(rule.rule ?? rule.id) }), document.createTextNode(` (${visible(rule.source)}) → ${rule.decision}`)];
}

/** The policy's account of a decision, step by step: the decision, each rule that matched (the winner marked), the floor, what was considered, the notes. */
function renderTrace(detail: ReceiptDetail): HTMLOListElement {
  const list = el('ol', { class: 'trace', 'aria-label': 'decision trace' });
  const item = (...children: Node[]): void => {
    list.appendChild(el('li', {}, ...children));
  };
  const text = (value: string): Text => document.createTextNode(value);
  const explanation = detail.explanation;
  if (explanation === undefined || isRuleList(explanation)) {
    const rules = explanation ?? detail.receipt.policy.rules;
    item(text(`policy decision: ${detail.receipt.policy.decision}`));
    for (const rule of rules) item(text('rule '), ...ruleText(rule));
  } else {
    const x = explanation;
    item(text(`mode ${x.mode}, policy v${x.version}`));
    for (const rule of x.rules) {
      const li = el('li', { class: rule.winner ? 'winner' : '' }, text(rule.winner ? 'decides: rule ' : 'matched: rule '), ...ruleText(rule), text(rule.reason ? ` — ${visible(rule.reason)}` : ''));
      list.appendChild(li);
    }
    if (x.rules.length === 0) item(text('no rule matched'));
    if (x.guardrail) item(text(`floor: ${x.guardrail.reason} — ${visible(x.guardrail.detail)}`));
    const c = x.considered;
    if (c.argv) item(text(`considered argv: ${visible(c.argv.join(' '))}`));
    if (c.paths) item(text(`considered paths: ${visible(c.paths.join(', '))}`));
    if (c.host) item(text(`considered host: ${visible(c.host)}`));
    if (c.server) item(text(`considered server: ${visible(c.server)}`));
    for (const note of x.notes) item(text(`note: ${visible(note)}`));
    item(text(`policy decision: ${x.decision.kind}`));
  }
  item(text(`outcome: ${describeDecision(detail.receipt)}`));
  return list;
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
      // What a model chose (a tool name it asked for, an id, an agent) can hold characters that hide or reorder text.
      dl.appendChild(el('dd', { text: visible(v ?? '—') }));
    };
    row('invocation', r.invocationId);
    row('tool', r.tool + (r.version ? `@${r.version}` : ''));
    row('target', targetText(r) || undefined);
    row('agent', r.agent);
    row('status', `${r.status} · ${r.code}`);
    row('started', new Date(r.startedAt).toISOString());
    row('duration', dur(r.durationMs));
    row('risk / tier', `${r.risk} / ${r.tier}`);
    row('decision', `${describeDecision(r)} (policy ${r.policy.decision}, v${String(r.policy.version)})`);
    row('approval', r.approval.outcome + (r.approval.how ? ` via ${r.approval.how}` : ''));
    row('input digest', r.inputDigest);
    row('action digest', r.actionDigest);
    row('chain position', d.chain ? `#${d.chain.position} ${d.chain.hash}` : 'not journaled');
    box.replaceChildren(
      el('h3', { text: 'Receipt' }),
      dl,
      el('h4', { text: 'Arguments (redacted)' }),
      el('pre', { text: visible(JSON.stringify(r.arguments, null, 2), true) }),
      el('h4', { text: 'Decision trace' }),
      renderTrace(d),
      el('h4', { text: 'Output summary' }),
      el('pre', { text: visible(r.outputSummary, true) }),
    );
    if (r.attachments !== undefined && r.attachments.length > 0) box.append(el('h4', { text: 'Media' }), renderAttachments(r.attachments));
    box.hidden = false;
  });
}
