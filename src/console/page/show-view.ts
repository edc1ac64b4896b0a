import { loadPolicy } from './load-policy.js';
import { loadReceipts } from './load-receipts.js';
import { loadWithheld } from './load-withheld.js';

/** Switch to one of the views named by the nav buttons' `data-view`, loading what it shows. */
export function showView(name: string): void {
  document.querySelectorAll<HTMLButtonElement>('nav button').forEach((b) => b.classList.toggle('active', b.dataset.view === name));
  document.querySelectorAll('.view').forEach((v) => v.classList.toggle('active', v.id === `view-${name}`));
  if (name === 'receipts') loadReceipts();
  if (name === 'policy') loadPolicy();
  if (name === 'withheld') loadWithheld();
}
