import { describe, expect, it } from 'vitest';
import { routeConsoleRequest } from './route-console-request.js';

describe('routeConsoleRequest', () => {
  it('maps each read onto its route, and a receipt id as the path spells it', () => {
    expect(routeConsoleRequest('GET', '/')).toEqual({ type: 'page' });
    expect(routeConsoleRequest('GET', '/api/approvals/closed')).toEqual({ type: 'closed-approvals' });
    expect(routeConsoleRequest('GET', '/api/receipts')).toEqual({ type: 'receipts' });
    expect(routeConsoleRequest('GET', '/api/receipts/a%2Fb')).toEqual({ type: 'receipt', receiptId: 'a%2Fb' });
  });

  it('maps a decision and a withheld approval only when posted, with a well-formed id', () => {
    expect(routeConsoleRequest('POST', '/api/approvals/ap_1')).toEqual({ type: 'decide', approvalId: 'ap_1' });
    expect(routeConsoleRequest('GET', '/api/approvals/ap_1')).toEqual({ type: 'not-found' });
    expect(routeConsoleRequest('POST', '/api/approvals/ap-1')).toEqual({ type: 'not-found' });
    expect(routeConsoleRequest('POST', '/api/withheld/mcp_up_lookup/approve')).toEqual({ type: 'approve-withheld', name: 'mcp_up_lookup' });
    expect(routeConsoleRequest('POST', '/api/withheld/MCP/approve')).toEqual({ type: 'not-found' });
  });

  it('never takes a name inherited from Object for a route, nor a read posted', () => {
    expect(routeConsoleRequest('GET', 'constructor')).toEqual({ type: 'not-found' });
    expect(routeConsoleRequest('GET', '__proto__')).toEqual({ type: 'not-found' });
    expect(routeConsoleRequest('POST', '/api/policy')).toEqual({ type: 'not-found' });
    expect(routeConsoleRequest('DELETE', '/')).toEqual({ type: 'not-found' });
  });

  it('maps media only by 64 lower-case hex digits, read, never another spelling', () => {
    const hex = 'ab'.repeat(32);
    expect(routeConsoleRequest('GET', `/api/media/${hex}`)).toEqual({ type: 'media', digest: hex });
    for (const path of [`/api/media/${hex.toUpperCase()}`, `/api/media/${hex}.png`, `/api/media/${hex}/`, `/api/media/${hex.slice(2)}`, `/api/media/${hex}00`, `/api/media/media:sha256:${hex}`, `/api/media/%2e%2e/${hex}`, '/api/media/']) {
      expect(routeConsoleRequest('GET', path)).toEqual({ type: 'not-found' });
    }
    expect(routeConsoleRequest('POST', `/api/media/${hex}`)).toEqual({ type: 'not-found' });
  });
});
