import { api, byId } from './dom.js';

export function loadPolicy(): void {
  void api<unknown>('/api/policy').then((p) => {
    byId('policy').textContent = JSON.stringify(p, null, 2);
  });
}
