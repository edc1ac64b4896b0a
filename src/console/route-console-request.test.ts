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
});
