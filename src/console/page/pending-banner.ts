import type { PendingApproval } from '../console-types.js';
import { byId } from './dom.js';
import { showView } from './show-view.js';

/*
 * A pending approval is visible from every view: a banner under the header
 * and the count in the page's title (what another tab shows). A browser
 * notification is sent only after the person asks for one, and says no
 * more than the tool's name.
 */

const TITLE = 'toolgate console';
let notify = false;

export function showPending(count: number): void {
  const banner = byId('pending-banner');
  banner.hidden = count === 0;
  byId('pending-text').textContent = count === 1 ? '1 approval is waiting for you' : `${count} approvals are waiting for you`;
  document.title = count === 0 ? TITLE : `(${count}) ${TITLE}`;
  byId('pending-notify').hidden = notify || typeof Notification === 'undefined' || Notification.permission === 'denied';
}

export function notifyPending(approval: PendingApproval): void {
  if (!notify || !document.hidden) return;
  new Notification('toolgate: an approval is waiting', { body: approval.toolName, tag: approval.id });
}

export function setUpPendingBanner(): void {
  byId('pending-review').addEventListener('click', () => showView('approvals'));
  byId('pending-notify').addEventListener('click', () => {
    void Notification.requestPermission().then((permission) => {
      notify = permission === 'granted';
      byId('pending-notify').hidden = notify || permission === 'denied';
    });
  });
}
