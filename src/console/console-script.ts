/**
 * The console's browser script. Plain ES2020, no build step. Data from the
 * API is hostile (tool names, arguments, previews come from models), so it
 * is only ever placed with textContent.
 */
export const consoleScript = String.raw`
(function () {
  'use strict';
  var token = new URLSearchParams(location.search).get('token') || '';
  function api(path, init) {
    init = init || {};
    init.headers = Object.assign({ 'x-toolgate-token': token, 'content-type': 'application/json' }, init.headers || {});
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
      pre.appendChild(el('span', { class: cls, text: line + '\n' }));
    });
    return pre;
  }
  function decide(id, decision, reason) {
    api('/api/approvals/' + encodeURIComponent(id), { method: 'POST', body: JSON.stringify({ decision: decision, reason: reason }) });
  }
  function renderApproval(a) {
    var preview = el('dl', { class: 'preview' });
    ['path', 'command', 'host', 'summary'].forEach(function (k) {
      if (a.preview && a.preview[k] !== undefined) { preview.appendChild(el('dt', { text: k })); preview.appendChild(el('dd', { text: a.preview[k] })); }
    });
    var reason = el('input', { placeholder: 'reason (optional)', 'aria-label': 'rejection reason' });
    var card = el('div', { class: 'card', 'data-approval': a.id },
      el('h3', { text: a.toolName }),
      el('div', { class: 'meta', text: (a.action || 'rule') + ' · agent ' + (a.agent || '—') + ' · call ' + a.callId + ' · ' + time(a.createdAt) }),
      preview,
      a.diff ? renderDiff(a.diff) : a.view && a.view.body ? (a.action === 'fs_write' ? renderDiff(a.view.body) : el('pre', { text: a.view.body })) : null,
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
      chip.textContent = v.ok ? 'chain verified · ' + v.rows + ' rows' : v.firstBadRow && v.firstBadRow.table === 'anchor' ? 'journal does not match its anchor' : 'chain broken at ' + (v.firstBadRow ? v.firstBadRow.table + ' #' + v.firstBadRow.id : '?');
      chip.className = 'chip ' + (v.ok ? 'ok' : 'bad');
    });
  }

  // Claims a crash left open: their action is refused until an operator resolves them.
  function loadUnresolved() {
    api('/api/unresolved').then(function (list) {
      var items = list.map(function (c) {
        return el('li', { 'data-claim': c.claimId, text: new Date(c.startedAt).toISOString() + ' · ' + c.toolName + ' · call ' + c.callId + ' · claim ' + c.claimId + (c.holder ? ' · held by ' + c.holder : '') });
      });
      var box = document.getElementById('unresolved');
      document.getElementById('unresolved-list').replaceChildren.apply(document.getElementById('unresolved-list'), items);
      box.hidden = items.length === 0;
    });
  }

  // Live stream
  var source = new EventSource('/api/events?token=' + encodeURIComponent(token));
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
  loadUnresolved();
  setInterval(function () { checkChain(); loadUnresolved(); }, 30000);
  updateApprovalCount();
})();
`;
