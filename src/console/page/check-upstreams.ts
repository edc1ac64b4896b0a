import type { PolicyDescription } from '../console-types.js';
import { api, byId, time, visible } from './dom.js';

/** The header's upstream chip: the servers that are down, why, and when each is tried again; the tail of its stderr on hover. */
export function checkUpstreams(): void {
  void api<PolicyDescription>('/api/policy').then((policy) => {
    const list = policy.servers ?? [];
    const down = list.filter((server) => server.state !== 'up');
    const chip = byId('upstreams');
    chip.hidden = list.length === 0;
    chip.className = `chip ${down.length > 0 ? 'bad' : 'ok'}`;
    chip.textContent =
      down.length === 0
        ? `upstreams: ${list.length} up`
        : `upstreams down: ${down.map((server) => `${visible(server.server)} (${server.state}${server.error ? `: ${visible(server.error)}` : ''}${server.nextRetryAt ? ` · retry ${time(server.nextRetryAt)}` : ''})`).join('; ')}`;
    chip.title = down.map((server) => visible(server.server) + (server.stderr ? `:\n${visible(server.stderr, true)}` : '')).join('\n\n');
  });
}
