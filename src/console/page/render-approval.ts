import { cutNotice, runnerCodeNotice } from '../../core/action/describe-approval.js';
import type { ApprovalMode } from '../../core/internal.js';
import type { ClosedApproval, PendingApproval } from '../console-types.js';
import { api, byId, el, time, visible } from './dom.js';
import { notifyPending, showPending } from './pending-banner.js';
import { renderDiff } from './render-diff.js';
import { sessionText } from './session-text.js';
import { guardDecisions, whenSettled } from './settle-guard.js';

type Target = NonNullable<PendingApproval['target']>;

const approvals = new Map<string, HTMLElement>();

function decide(id: string, decision: 'once' | 'session' | 'always' | 'reject', reason?: string): void {
  void api<unknown>(`/api/approvals/${encodeURIComponent(id)}`, { method: 'POST', body: JSON.stringify({ decision, reason }) });
}

// The card shows everything the approval covers: why it asks, where the call really acts, what it carries.
const MODES: Readonly<Record<ApprovalMode, string>> = {
  ask: 'Mode: ask — every governed call asks',
  'accept-edits': 'Mode: accept-edits — edits inside the workspace run without asking; anything else asks',
  auto: 'Mode: auto — what a rule allows runs without asking; anything else asks',
  plan: 'Mode: plan — nothing runs',
};
const KNOWN_REASONS = ['governed', 'rule', 'risk', 'protected_path', 'classifier'];

function renderWhy(a: PendingApproval): HTMLUListElement {
  const r = a.reasons;
  const list = el('ul', { class: 'why', 'aria-label': 'why this asks' });
  const item = (text: string, cls?: string): void => {
    list.appendChild(el('li', { class: cls || '', text }));
  };
  const rules = r.rules;
  const asking = rules.filter((rule) => rule.decision === 'ask');
  if (r.reason === 'protected_path' || r.protectedPath) item('Protected path — never approved automatically, never remembered', 'warn');
  if (r.reason === 'risk') item(r.risk ? `Risk ${r.risk} ≥ approveAtRisk` : 'Risk at or above approveAtRisk');
  if (r.reason === 'classifier') item('The auto-mode classifier did not decide');
  if (r.reason === 'governed') item(`Governed action${a.action ? ` (${a.action})` : ''}`);
  if (r.reason === 'rule' && asking.length === 0) item('Asked by a policy rule');
  if (!KNOWN_REASONS.includes(r.reason)) item((a.why === 'hook' ? 'Asked by a pre-execute hook: ' : 'Asked: ') + visible(r.reason));
  for (const rule of rules) {
    list.appendChild(
      el(
        'li',
        {},
        document.createTextNode(rule.decision === 'ask' ? 'Asked by rule ' : 'Rule '),
        el('code', { class: 'rule', text: visible(rule.rule || rule.id) }),
        document.createTextNode(` (${visible(rule.source)})${rule.decision === 'ask' ? '' : ` matched: ${rule.decision}`}`),
      ),
    );
  }
  if (r.mode && MODES[r.mode]) item(MODES[r.mode]);
  return list;
}

const FLAGS: Readonly<Record<string, string>> = { protected: 'a protected path', link: 'reached through a symlink', outside: 'outside the workspace', new: 'does not exist yet', hardlink: 'has more than one hard link' };

function renderFiles(label: string, files: Target['files']): HTMLDivElement {
  return el(
    'div',
    { class: 'files' },
    ...files.map((f) => {
      const flags = el('span', { class: 'flags' });
      for (const flag of f.flags) flags.appendChild(el('span', { class: `flag flag-${flag}`, title: FLAGS[flag] || flag, text: flag }));
      return el(
        'div',
        { class: 'file' },
        el('div', { class: 'file-head' }, el('span', { class: 'label', text: label }), el('code', { class: 'path', text: visible(f.path) }), flags),
        f.requested !== undefined ? el('div', { class: 'requested' }, document.createTextNode('requested as '), el('code', { text: visible(f.requested) })) : null,
      );
    }),
  );
}

function renderTarget(a: PendingApproval): HTMLDivElement {
  const t = a.target;
  const box = el('div', { class: 'target' });
  const dl = el('dl', { class: 'preview' });
  const row = (k: string, v: string | Node | undefined): void => {
    if (v === undefined) return;
    dl.appendChild(el('dt', { text: k }));
    dl.appendChild(typeof v === 'string' ? el('dd', { text: visible(v) }) : el('dd', {}, v));
  };
  if (!t) {
    if (a.preview.summary !== undefined) row('arguments', a.preview.summary);
    box.appendChild(dl);
    return box;
  }
  if (t.files.length > 0) box.appendChild(renderFiles(t.command ? 'working directory' : t.access === 'write' ? 'writes' : 'reads', t.files));
  // The paths its arguments name that matter (protected, a link, outside, hard-linked), where they really lead.
  if (t.command?.paths) box.appendChild(renderFiles('argument', t.command.paths));
  if (t.command) {
    // One element per box: sh -c 'echo a; touch b' is three elements, never four words.
    const argv = el('ol', { class: 'argv', 'aria-label': 'argv' });
    for (const part of t.command.argv) argv.appendChild(el('li', {}, el('code', { text: visible(part) })));
    row('command', a.preview.command);
    row('argv', argv);
    row('executable', t.command.executable);
    row('cwd', t.command.cwd);
  }
  if (t.http) row('request', el('span', { class: 'request' }, el('strong', { text: t.http.method }), document.createTextNode(` ${visible(t.http.url)}`)));
  if (t.mcp) {
    row('server', t.mcp.server);
    row('tool', t.mcp.tool);
  }
  if (t.os) row('os action', t.os.action);
  if (t.search) {
    row('query', t.search.query);
    row('via', t.search.host);
  }
  box.appendChild(dl);
  if (t.mcp) box.appendChild(el('div', {}, el('h4', { text: 'Arguments' }), el('pre', { class: 'mcp-arguments', text: visible(t.mcp.arguments, true) })));
  if (t.mcp?.cut) box.appendChild(el('p', { class: 'cut', role: 'note', text: cutNotice(t.mcp.cut) }));
  // `npm test` is two words on the card; what runs is its file's code, and what that code runs in turn.
  if (t.command?.code) box.appendChild(el('p', { class: 'cut', role: 'note', text: visible(runnerCodeNotice(t.command.code)) }));
  if (t.os && t.os.text !== undefined) box.appendChild(el('div', {}, el('h4', { text: 'Text' }), el('pre', { text: visible(t.os.text, true) })));
  return box;
}

function renderCallBody(a: PendingApproval): HTMLDivElement | null {
  const view = a.view;
  const box = el('div', { class: 'call-body' });
  if (view?.subtitle) box.appendChild(el('div', { class: 'subtitle', text: visible(view.subtitle) }));
  // A command's own rendering joins its argv with spaces: the argv above is the truth.
  const body = a.target?.command ? undefined : view?.body;
  if (a.diff) box.appendChild(el('div', {}, el('h4', { text: 'Diff' }), renderDiff(a.diff)));
  // Only a view that is a diff (an edit's `-`/`+` lines) is drawn as one: a whole write drawn so showed its YAML items
  // (`- run: …`) as removed lines and a line that starts with `+` as the one line added.
  else if (body !== undefined) box.appendChild(el('div', {}, el('h4', { text: view?.language === 'diff' ? 'Change' : 'Content' }), view?.language === 'diff' ? renderDiff(body) : el('pre', { text: visible(body, true) })));
  return box.childNodes.length > 0 ? box : null;
}

/**
 * Which client asked, so two clients of one gateway can be told apart: what
 * it declared of itself (its own text, written out as any value) and the
 * start of its session id. Approve for session covers that session only.
 */
function renderSession(a: PendingApproval): HTMLDivElement | null {
  if (!a.session) return null;
  return el('div', { class: 'meta session', 'data-session': a.session.id, text: `asked by ${sessionText(a.session)} · Approve for session covers this session only` });
}

function renderMasked(a: PendingApproval): HTMLParagraphElement | null {
  if (!(a.masked > 0)) return null;
  return el('p', { class: 'masked', role: 'note', text: `${a.masked}${a.masked === 1 ? ' value' : ' values'} masked (shown as [redacted]): approving this call is never remembered` });
}

function renderArguments(a: PendingApproval): HTMLDetailsElement {
  return el('details', { class: 'arguments' }, el('summary', { text: 'All arguments (masked)' }), el('pre', { text: visible(JSON.stringify(a.arguments, null, 2) || '', true) }));
}

/** A pending approval's card, with its four decisions; `fresh` when it arrived while the page was open. */
export function renderApproval(a: PendingApproval, fresh = false): void {
  const reason = el('input', { placeholder: 'reason (optional)', 'aria-label': 'rejection reason' });
  const card = el(
    'div',
    { class: 'card', 'data-approval': a.id },
    el('h3', { text: visible(a.toolName) }),
    el('div', { class: 'meta', text: `${a.action || 'rule'} · agent ${visible(a.agent || '—')} · call ${visible(a.callId)} · ${time(a.createdAt)}` }),
    renderSession(a),
    renderWhy(a),
    renderTarget(a),
    renderCallBody(a),
    renderMasked(a),
    renderArguments(a),
    el(
      'div',
      { class: 'actions' },
      el('button', { class: 'approve', 'data-decision': 'once', text: 'Approve once', onclick: whenSettled(() => decide(a.id, 'once')) }),
      el('button', { class: 'approve', 'data-decision': 'session', text: 'Approve for session', onclick: whenSettled(() => decide(a.id, 'session')) }),
      el('button', { class: 'approve', 'data-decision': 'always', text: 'Always allow', onclick: whenSettled(() => decide(a.id, 'always')) }),
      reason,
      el('button', { class: 'reject', 'data-decision': 'reject', text: 'Reject', onclick: whenSettled(() => decide(a.id, 'reject', reason.value)) }),
    ),
  );
  approvals.set(a.id, card);
  // Its buttons answer once it has stayed still: a card that slides under a click meant for another does not take it.
  guardDecisions(card);
  byId('approvals').appendChild(card);
  updateApprovalCount();
  if (fresh) notifyPending(a);
}

export function removeApproval(id: string): void {
  approvals.get(id)?.remove();
  approvals.delete(id);
  updateApprovalCount();
}

// An approval that closed without a decision: its call ended first, or nobody decided in time.
export function noteClosed(c: ClosedApproval): void {
  if (c.outcome !== 'withdrawn' && c.outcome !== 'expired') return;
  const list = byId('approvals-closed');
  list.prepend(
    el('li', {
      class: c.outcome,
      'data-closed': c.id,
      text: `${time(c.closedAt)} · ${visible(c.toolName)} · call ${visible(c.callId)} · ${c.outcome === 'withdrawn' ? 'approval withdrawn: the call ended before anyone decided' : 'approval expired: nobody decided in time (rejected)'}`,
    }),
  );
  list.hidden = false;
}

export function updateApprovalCount(): void {
  const badge = byId('approval-count');
  badge.textContent = String(approvals.size);
  badge.classList.toggle('hot', approvals.size > 0);
  byId('approvals-empty').hidden = approvals.size > 0;
  showPending(approvals.size);
}
