import type { ApprovalChange, ConsoleHello, LiveCall } from '../console-types.js';
import { checkChain } from './check-chain.js';
import { checkUpstreams } from './check-upstreams.js';
import { byId } from './dom.js';
import { loadReceipts } from './load-receipts.js';
import { loadUnresolved } from './load-unresolved.js';
import { loadWithheld } from './load-withheld.js';
import { setUpPendingBanner } from './pending-banner.js';
import { noteClosed, removeApproval, renderApproval, updateApprovalCount } from './render-approval.js';
import { renderCall } from './render-call.js';
import { showView } from './show-view.js';

/*
 * The console's browser script: the entry the build bundles into the page.
 * It reads JSON and the event stream of the console API (console-types.ts).
 */

// The token came in the address only to load this page, which set it as an HttpOnly cookie: it leaves the address bar and the history now.
history.replaceState(null, '', location.pathname);

document.querySelectorAll<HTMLButtonElement>('nav button').forEach((b) => b.addEventListener('click', () => showView(b.dataset.view ?? '')));
setUpPendingBanner();
byId('receipt-filter').addEventListener('submit', (e) => {
  e.preventDefault();
  loadReceipts();
});
byId('receipts-older').addEventListener('click', () => loadReceipts(true));

// Live stream
const source = new EventSource('/api/events');
const data = <T>(e: Event): T => JSON.parse((e as MessageEvent<string>).data) as T;
source.addEventListener('hello', (e) => {
  const hello = data<ConsoleHello>(e);
  hello.calls.forEach(renderCall);
  for (const approval of hello.approvals) renderApproval(approval);
  hello.closed.forEach(noteClosed);
});
let chainTimer = 0;
source.addEventListener('call', (e) => {
  const call = data<LiveCall>(e);
  renderCall(call);
  // A finished call adds journal rows: re-check the chain shortly after.
  if (call.invocationId) {
    clearTimeout(chainTimer);
    chainTimer = setTimeout(checkChain, 500);
  }
});
source.addEventListener('approval', (e) => {
  const change = data<ApprovalChange>(e);
  if (change.type === 'added') renderApproval(change.approval, true);
  else {
    removeApproval(change.id);
    noteClosed(change);
  }
});
source.addEventListener('withheld', () => loadWithheld());
checkChain();
loadUnresolved();
setInterval(() => {
  checkChain();
  loadUnresolved();
}, 30000);
checkUpstreams();
setInterval(checkUpstreams, 5000);
updateApprovalCount();
