import { UNPRINTABLE } from '../core/action/display-action.js';

/**
 * The console's browser script. Plain ES2020, no build step. Data from the
 * API is hostile (tool names, arguments, previews come from models), so it
 * is only ever placed with textContent.
 */
export const consoleScript = String.raw`
(function () {
  'use strict';
  // The token came in the address only to load this page, which set it as an HttpOnly cookie: it leaves the address bar and the history now.
  history.replaceState(null, '', location.pathname);
  function api(path, init) {
    init = init || {};
    init.headers = Object.assign({ 'content-type': 'application/json' }, init.headers || {});
    return fetch(path, init).then(function (r) { return r.json(); });
  }
  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'class') node.className = attrs[k];
      else if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), attrs[k]);
      else node.setAttribute(k, attrs[k]);
    });
    for (var i = 2; i < arguments.length; i++) if (arguments[i]) node.appendChild(arguments[i]);
    return node;
  }
  function time(ms) { return new Date(ms).toLocaleTimeString(); }
  function dur(ms) { return ms === undefined ? '' : ms + ' ms'; }

  // Views
  var buttons = document.querySelectorAll('nav button');
  function show(name) {
    buttons.forEach(function (b) { b.classList.toggle('active', b.dataset.view === name); });
    document.querySelectorAll('.view').forEach(function (v) { v.classList.toggle('active', v.id === 'view-' + name); });
    if (name === 'receipts') loadReceipts();
    if (name === 'policy') api('/api/policy').then(function (p) { document.getElementById('policy').textContent = JSON.stringify(p, null, 2); });
    if (name === 'withheld') loadWithheld();
  }
  buttons.forEach(function (b) { b.addEventListener('click', function () { show(b.dataset.view); }); });

  // Live calls
  var calls = new Map();
  function renderCall(call) {
    var previous = calls.get(call.callId);
    var merged = Object.assign({}, previous ? previous.data : {}, call);
    var row = previous ? previous.row : el('tr', { 'data-call': call.callId });
    row.replaceChildren(
      el('td', { text: time(merged.at) }), el('td', { text: merged.tool }), el('td', { text: merged.agent || '—' }),
      el('td', { text: merged.decision || '' }), el('td', { text: dur(merged.durationMs) }),
      el('td', {}, el('span', { class: 'status ' + merged.status, text: merged.status + (merged.code && merged.code !== 'OK' ? ' · ' + merged.code : '') })));
    if (merged.invocationId) row.onclick = function () { show('receipts'); openReceipt(merged.invocationId); };
    if (!previous) document.getElementById('calls').prepend(row);
    calls.set(call.callId, { row: row, data: merged });
    document.getElementById('calls-empty').hidden = calls.size > 0;
  }

  // Approvals
  var approvals = new Map();
  function renderDiff(text) {
    var pre = el('pre', { class: 'diff' });
    text.split('\n').forEach(function (line) {
      var cls = line[0] === '+' && line.slice(0, 3) !== '+++' ? 'diff-add' : line[0] === '-' && line.slice(0, 3) !== '---' ? 'diff-del' : line.slice(0, 2) === '@@' ? 'diff-hunk' : '';
      pre.appendChild(el('span', { class: cls, text: visible(line, true) + '\n' }));
    });
    return pre;
  }
  function decide(id, decision, reason) {
    api('/api/approvals/' + encodeURIComponent(id), { method: 'POST', body: JSON.stringify({ decision: decision, reason: reason }) });
  }
  // The card shows everything the approval covers: why it asks, where the call really acts, what it carries.
  // What a model chose can hold characters that hide or reorder text; they are written out as U+XXXX.
  var UNPRINTABLE = new RegExp(${JSON.stringify(UNPRINTABLE.source)}, 'g');
  function visible(text, block) {
    return String(text).replace(UNPRINTABLE, function (c) {
      if (block && (c === '\n' || c === '\t')) return c;
      return '\u27e8U+' + ('000' + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + '\u27e9';
    });
  }
  var MODES = {
    ask: 'Mode: ask — every governed call asks',
    'accept-edits': 'Mode: accept-edits — edits inside the workspace run without asking; anything else asks',
    auto: 'Mode: auto — what a rule allows runs without asking; anything else asks',
    plan: 'Mode: plan — nothing runs'
  };
  var KNOWN_REASONS = ['governed', 'rule', 'risk', 'protected_path', 'classifier'];
  function renderWhy(a) {
    var r = a.reasons || { reason: a.why, rules: [], protectedPath: false };
    var list = el('ul', { class: 'why', 'aria-label': 'why this asks' });
    function item(text, cls) { list.appendChild(el('li', { class: cls || '', text: text })); }
    var rules = r.rules || [];
    var asking = rules.filter(function (rule) { return rule.decision === 'ask'; });
    if (r.reason === 'protected_path' || r.protectedPath) item('Protected path — never approved automatically, never remembered', 'warn');
    if (r.reason === 'risk') item(r.risk ? 'Risk ' + r.risk + ' ≥ approveAtRisk' : 'Risk at or above approveAtRisk');
    if (r.reason === 'classifier') item('The auto-mode classifier did not decide');
    if (r.reason === 'governed') item('Governed action' + (a.action ? ' (' + a.action + ')' : ''));
    if (r.reason === 'rule' && asking.length === 0) item('Asked by a policy rule');
    if (KNOWN_REASONS.indexOf(r.reason) === -1) item((a.why === 'hook' ? 'Asked by a pre-execute hook: ' : 'Asked: ') + visible(r.reason));
    rules.forEach(function (rule) {
      list.appendChild(el('li', {}, document.createTextNode(rule.decision === 'ask' ? 'Asked by rule ' : 'Rule '),
        el('code', { class: 'rule', text: visible(rule.rule || rule.id) }),
        document.createTextNode(' (' + visible(rule.source) + ')' + (rule.decision === 'ask' ? '' : ' matched: ' + rule.decision))));
    });
    if (r.mode && MODES[r.mode]) item(MODES[r.mode]);
    return list;
  }
  var FLAGS = { protected: 'a protected path', link: 'reached through a symlink', outside: 'outside the workspace', new: 'does not exist yet', hardlink: 'has more than one hard link' };
  function renderFiles(t) {
    var label = t.command ? 'working directory' : t.access === 'write' ? 'writes' : 'reads';
    return el.apply(null, ['div', { class: 'files' }].concat(t.files.map(function (f) {
      var flags = el('span', { class: 'flags' });
      (f.flags || []).forEach(function (flag) { flags.appendChild(el('span', { class: 'flag flag-' + flag, title: FLAGS[flag] || flag, text: flag })); });
      return el('div', { class: 'file' },
        el('div', { class: 'file-head' }, el('span', { class: 'label', text: label }), el('code', { class: 'path', text: visible(f.path) }), flags),
        f.requested !== undefined ? el('div', { class: 'requested' }, document.createTextNode('requested as '), el('code', { text: visible(f.requested) })) : null);
    })));
  }
  function renderTarget(a) {
    var t = a.target, box = el('div', { class: 'target' }), dl = el('dl', { class: 'preview' });
    function row(k, v) { if (v !== undefined && v !== null) { dl.appendChild(el('dt', { text: k })); dl.appendChild(typeof v === 'string' ? el('dd', { text: visible(v) }) : el('dd', {}, v)); } }
    if (!t) {
      if (a.preview && a.preview.summary !== undefined) row('arguments', a.preview.summary);
      box.appendChild(dl);
      return box;
    }
    if (t.files && t.files.length > 0) box.appendChild(renderFiles(t));
    if (t.command) {
      // One element per box: sh -c 'echo a; touch b' is three elements, never four words.
      var argv = el('ol', { class: 'argv', 'aria-label': 'argv' });
      t.command.argv.forEach(function (part) { argv.appendChild(el('li', {}, el('code', { text: visible(part) }))); });
      row('command', a.preview && a.preview.command);
      row('argv', argv);
      row('executable', t.command.executable);
      row('cwd', t.command.cwd);
    }
    if (t.http) row('request', el('span', { class: 'request' }, el('strong', { text: t.http.method }), document.createTextNode(' ' + visible(t.http.url))));
    if (t.mcp) { row('server', t.mcp.server); row('tool', t.mcp.tool); }
    if (t.os) row('os action', t.os.action);
    if (t.search) { row('query', t.search.query); row('via', t.search.host); }
    box.appendChild(dl);
    if (t.mcp) box.appendChild(el('div', {}, el('h4', { text: 'Arguments' }), el('pre', { class: 'mcp-arguments', text: visible(t.mcp.arguments, true) })));
    if (t.os && t.os.text !== undefined) box.appendChild(el('div', {}, el('h4', { text: 'Text' }), el('pre', { text: visible(t.os.text, true) })));
    return box;
  }
  function renderCallBody(a) {
    var view = a.view || {};
    var box = el('div', { class: 'call-body' });
    if (view.subtitle) box.appendChild(el('div', { class: 'subtitle', text: visible(view.subtitle) }));
    // A command's own rendering joins its argv with spaces: the argv above is the truth.
    var body = a.target && a.target.command ? undefined : view.body;
    if (a.diff) box.appendChild(el('div', {}, el('h4', { text: 'Diff' }), renderDiff(a.diff)));
    else if (body !== undefined) box.appendChild(el('div', {}, el('h4', { text: a.action === 'fs_write' ? 'Change' : 'Content' }), a.action === 'fs_write' ? renderDiff(body) : el('pre', { text: visible(body, true) })));
    return box.childNodes.length > 0 ? box : null;
  }
  function renderMasked(a) {
    if (!(a.masked > 0)) return null;
    return el('p', { class: 'masked', role: 'note', text: a.masked + (a.masked === 1 ? ' value' : ' values') + ' masked (shown as [redacted]): approving this call is never remembered' });
  }
  function renderArguments(a) {
    return el('details', { class: 'arguments' }, el('summary', { text: 'All arguments (masked)' }), el('pre', { text: visible(JSON.stringify(a.arguments, null, 2) || '', true) }));
  }
  function renderApproval(a) {
    var reason = el('input', { placeholder: 'reason (optional)', 'aria-label': 'rejection reason' });
    var card = el('div', { class: 'card', 'data-approval': a.id },
      el('h3', { text: visible(a.toolName) }),
      el('div', { class: 'meta', text: (a.action || 'rule') + ' · agent ' + visible(a.agent || '—') + ' · call ' + visible(a.callId) + ' · ' + time(a.createdAt) }),
      renderWhy(a),
      renderTarget(a),
      renderCallBody(a),
      renderMasked(a),
      renderArguments(a),
      el('div', { class: 'actions' },
        el('button', { class: 'approve', 'data-decision': 'once', text: 'Approve once', onclick: function () { decide(a.id, 'once'); } }),
        el('button', { class: 'approve', 'data-decision': 'session', text: 'Approve for session', onclick: function () { decide(a.id, 'session'); } }),
        el('button', { class: 'approve', 'data-decision': 'always', text: 'Always allow', onclick: function () { decide(a.id, 'always'); } }),
        reason,
        el('button', { class: 'reject', 'data-decision': 'reject', text: 'Reject', onclick: function () { decide(a.id, 'reject', reason.value); } })));
    approvals.set(a.id, card);
    document.getElementById('approvals').appendChild(card);
    updateApprovalCount();
  }
  function removeApproval(id) {
    var card = approvals.get(id);
    if (card) card.remove();
    approvals.delete(id);
    updateApprovalCount();
  }
  // An approval that closed without a decision: its call ended first, or nobody decided in time.
  function noteClosed(c) {
    if (c.outcome !== 'withdrawn' && c.outcome !== 'expired') return;
    var list = document.getElementById('approvals-closed');
    list.prepend(el('li', { class: c.outcome, 'data-closed': c.id, text: time(c.closedAt) + ' · ' + c.toolName + ' · call ' + c.callId + ' · ' +
      (c.outcome === 'withdrawn' ? 'approval withdrawn: the call ended before anyone decided' : 'approval expired: nobody decided in time (rejected)') }));
    list.hidden = false;
  }
  function updateApprovalCount() {
    var badge = document.getElementById('approval-count');
    badge.textContent = String(approvals.size);
    badge.classList.toggle('hot', approvals.size > 0);
    document.getElementById('approvals-empty').hidden = approvals.size > 0;
  }

  // Receipts
  function loadReceipts() {
    var form = new FormData(document.getElementById('receipt-filter'));
    var query = new URLSearchParams();
    ['tool', 'status', 'agent'].forEach(function (k) { if (form.get(k)) query.set(k, form.get(k)); });
    if (form.get('since')) query.set('since', String(Date.now() - Number(form.get('since'))));
    api('/api/receipts?' + query.toString()).then(function (list) {
      var body = document.getElementById('receipts');
      body.replaceChildren.apply(body, list.map(function (r) {
        return el('tr', { 'data-receipt': r.invocationId, onclick: function () { openReceipt(r.invocationId); } },
          el('td', { text: time(r.startedAt) }), el('td', { text: r.tool }), el('td', { text: r.agent || '—' }),
          el('td', {}, el('span', { class: 'status ' + r.status, text: r.status })), el('td', { text: r.code }),
          el('td', { text: dur(r.durationMs) }), el('td', { text: r.outputSummary }));
      }));
    });
  }
  document.getElementById('receipt-filter').addEventListener('submit', function (e) { e.preventDefault(); loadReceipts(); });
  function openReceipt(id) {
    api('/api/receipts/' + encodeURIComponent(id)).then(function (d) {
      var box = document.getElementById('receipt-detail');
      if (!d || !d.receipt) { box.hidden = true; return; }
      var r = d.receipt, dl = el('dl');
      function row(k, v) { dl.appendChild(el('dt', { text: k })); dl.appendChild(el('dd', { text: v === undefined ? '—' : String(v) })); }
      row('invocation', r.invocationId); row('tool', r.tool + (r.version ? '@' + r.version : '')); row('agent', r.agent); row('status', r.status + ' · ' + r.code);
      row('started', new Date(r.startedAt).toISOString()); row('duration', dur(r.durationMs)); row('risk / tier', r.risk + ' / ' + r.tier);
      row('decision', r.policy.decision + ' (policy v' + r.policy.version + ')'); row('approval', r.approval.outcome + (r.approval.how ? ' via ' + r.approval.how : ''));
      row('input digest', r.inputDigest); row('action digest', r.actionDigest);
      row('chain position', d.chain ? '#' + d.chain.position + ' ' + d.chain.hash : 'not journaled');
      box.replaceChildren(el('h3', { text: 'Receipt' }), dl,
        el('h4', { text: 'Arguments (redacted)' }), el('pre', { text: JSON.stringify(r.arguments, null, 2) }),
        el('h4', { text: 'Decision trace' }), el('pre', { text: JSON.stringify(d.explanation || r.policy.rules, null, 2) }),
        el('h4', { text: 'Output summary' }), el('pre', { text: r.outputSummary }));
      box.hidden = false;
    });
  }

  // Withheld MCP definitions
  // The whole offered definition is shown, and the approval names its digest: the server pins it only if that is still what is offered.
  function loadWithheld() {
    api('/api/withheld').then(function (list) {
      var box = document.getElementById('withheld');
      box.replaceChildren.apply(box, list.map(function (w) {
        var offered = w.offered || {};
        var problem = el('p', { class: 'error', hidden: '' });
        return el('div', { class: 'card', 'data-withheld': w.name },
          el('h3', { text: w.name }),
          el('div', { class: 'meta', text: 'server ' + w.server + ' · tool ' + w.tool + ' · ' + (w.reason === 'changed' ? 'changed since it was approved' : 'not approved yet') }),
          offered.title ? el('p', { text: offered.title }) : null,
          el('h4', { text: 'Description' }), el('pre', { class: 'description', text: offered.description || '' }),
          el('h4', { text: 'Input schema' }), el('pre', { text: JSON.stringify(offered.inputSchema, null, 2) }),
          offered.outputSchema ? el('h4', { text: 'Output schema' }) : null,
          offered.outputSchema ? el('pre', { text: JSON.stringify(offered.outputSchema, null, 2) }) : null,
          el('div', { class: 'meta', text: 'offered sha256 ' + w.digest + (w.pinnedDigest ? ' · approved before: ' + w.pinnedDigest : '') }),
          problem,
          el('div', { class: 'actions' }, el('button', { class: 'approve', text: 'Approve this definition', onclick: function () {
            api('/api/withheld/' + encodeURIComponent(w.name) + '/approve', { method: 'POST', body: JSON.stringify({ digest: w.digest }) }).then(function (answer) {
              if (answer && answer.error) { problem.textContent = answer.error; problem.hidden = false; } else loadWithheld();
            });
          } })));
      }));
      document.getElementById('withheld-empty').hidden = list.length > 0;
    });
  }

  // Chain status
  function checkChain() {
    api('/api/verify').then(function (v) {
      var chip = document.getElementById('chain');
      chip.textContent = v.ok ? 'chain verified · ' + v.rows + ' rows' : 'chain broken at ' + (v.firstBadRow ? v.firstBadRow.table + ' #' + v.firstBadRow.id : '?');
      chip.className = 'chip ' + (v.ok ? 'ok' : 'bad');
    });
  }

  // Upstream MCP servers: the ones down, why, and when each is tried again; the tail of its stderr on hover.
  function checkUpstreams() {
    api('/api/policy').then(function (p) {
      var list = p.servers || [], chip = document.getElementById('upstreams');
      var down = list.filter(function (s) { return s.state !== 'up'; });
      chip.hidden = list.length === 0;
      chip.className = 'chip ' + (down.length > 0 ? 'bad' : 'ok');
      chip.textContent = down.length === 0 ? 'upstreams: ' + list.length + ' up' : 'upstreams down: ' + down.map(function (s) {
        return visible(s.server) + ' (' + s.state + (s.error ? ': ' + visible(s.error) : '') + (s.nextRetryAt ? ' · retry ' + time(s.nextRetryAt) : '') + ')';
      }).join('; ');
      chip.title = down.map(function (s) { return visible(s.server) + (s.stderr ? ':\n' + visible(s.stderr, true) : ''); }).join('\n\n');
    });
  }

  // Live stream
  var source = new EventSource('/api/events');
  source.addEventListener('hello', function (e) {
    var data = JSON.parse(e.data);
    data.calls.forEach(renderCall);
    data.approvals.forEach(renderApproval);
    data.closed.forEach(noteClosed);
  });
  var chainTimer = 0;
  source.addEventListener('call', function (e) {
    var call = JSON.parse(e.data);
    renderCall(call);
    // A finished call adds journal rows: re-check the chain shortly after.
    if (call.invocationId) { clearTimeout(chainTimer); chainTimer = setTimeout(checkChain, 500); }
  });
  source.addEventListener('approval', function (e) {
    var change = JSON.parse(e.data);
    if (change.type === 'added') renderApproval(change.approval); else { removeApproval(change.id); noteClosed(change); }
  });
  source.addEventListener('withheld', function () { loadWithheld(); });
  checkChain();
  setInterval(checkChain, 30000);
  checkUpstreams();
  setInterval(checkUpstreams, 5000);
  updateApprovalCount();
})();
`;
