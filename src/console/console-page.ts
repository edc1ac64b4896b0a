import { consoleScript } from './console-script.js';
import { consoleStyles } from './console-styles.js';

/**
 * The console's single page: static markup, styles and a small script that
 * reads JSON and SSE from the console API. Everything the page shows comes
 * from tool calls, so it is rendered with `textContent` only, never as HTML.
 */
export function renderConsolePage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolgate console</title>
<style nonce="${nonce}">${consoleStyles}</style>
</head>
<body>
<header>
  <div class="brand"><span class="logo">◆</span> toolgate <span class="muted">console</span></div>
  <nav>
    <button data-view="live" class="active">Live calls</button>
    <button data-view="approvals">Approvals <span id="approval-count" class="badge">0</span></button>
    <button data-view="receipts">Receipts</button>
    <button data-view="policy">Policy</button>
    <button data-view="withheld">Withheld MCP tools</button>
  </nav>
  <div id="upstreams" class="chip" hidden></div>
  <div id="chain" class="chip">chain: checking…</div>
</header>
<div id="pending-banner" class="banner" role="alert" hidden>
  <strong id="pending-text"></strong>
  <button id="pending-review" type="button">Review</button>
  <button id="pending-notify" type="button" hidden>Notify me in this browser</button>
</div>
<main>
  <section id="view-live" class="view active">
    <h2>Tool calls, live</h2>
    <table><thead><tr><th>time</th><th>tool</th><th>agent</th><th>decision</th><th>duration</th><th>status</th></tr></thead><tbody id="calls"></tbody></table>
    <p id="calls-empty" class="empty">No calls yet. Point an MCP client at this gateway and make one.</p>
    <div id="unresolved" class="card" hidden>
      <h3>Unresolved claims</h3>
      <p class="muted">Each call started and never settled, so it may or may not have had its effect; the same action is refused until you decide. Check, then run <code>toolgate audit resolve &lt;claim&gt; --as failed</code> (it did not happen) or <code>--as done</code> (it happened).</p>
      <ul id="unresolved-list"></ul>
    </div>
    <ul id="approvals-closed" class="closed" hidden></ul>
  </section>
  <section id="view-approvals" class="view">
    <h2>Pending approvals</h2>
    <div id="approvals"></div>
    <p id="approvals-empty" class="empty">Nothing is waiting for you.</p>
  </section>
  <section id="view-receipts" class="view">
    <h2>Receipts</h2>
    <form id="receipt-filter" class="filters">
      <input name="tool" placeholder="tool">
      <select name="status"><option value="">any status</option><option>ok</option><option>error</option><option>denied</option><option>cancelled</option><option>replayed</option></select>
      <input name="agent" placeholder="agent">
      <input name="run" placeholder="run id">
      <input name="q" type="search" placeholder="search: file, command, URL, text" aria-label="search receipts">
      <select name="since"><option value="">any time</option><option value="3600000">last hour</option><option value="86400000">last day</option></select>
      <button type="submit">Filter</button>
    </form>
    <table><thead><tr><th>started</th><th>tool</th><th>target</th><th>agent</th><th>decision</th><th>status</th><th>code</th><th>run</th><th>duration</th><th>summary</th></tr></thead><tbody id="receipts"></tbody></table>
    <p class="pager"><button id="receipts-older" type="button" hidden>Older receipts</button></p>
    <div id="receipt-detail" class="detail" hidden></div>
  </section>
  <section id="view-policy" class="view">
    <h2>Policy in force</h2>
    <div id="policy"></div>
  </section>
  <section id="view-withheld" class="view">
    <h2>Withheld MCP definitions</h2>
    <p class="muted">An upstream tool whose name, description or schema changed since it was approved, or that was never approved, is withheld until you approve what it offers now.</p>
    <div id="withheld"></div>
    <p id="withheld-empty" class="empty">No definition is withheld.</p>
  </section>
</main>
<dialog id="media-full" aria-label="media at full size"></dialog>
<script nonce="${nonce}">${consoleScript}</script>
</body>
</html>`;
}
