/** What a console request asks for, judged from its method and path alone (authentication comes after `favicon`). */
export type ConsoleRoute =
  | { readonly type: 'favicon' }
  | { readonly type: 'page' }
  | { readonly type: 'events' }
  | { readonly type: 'approvals' }
  | { readonly type: 'closed-approvals' }
  | { readonly type: 'decide'; readonly approvalId: string }
  | { readonly type: 'calls' }
  | { readonly type: 'receipts' }
  /** `receiptId` is as the path spells it, still percent-encoded. */
  | { readonly type: 'receipt'; readonly receiptId: string }
  /** `digest` is the SHA-256 of the media, 64 lower-case hex digits: a handle's only spelling. */
  | { readonly type: 'media'; readonly digest: string }
  | { readonly type: 'policy' }
  | { readonly type: 'verify' }
  | { readonly type: 'unresolved' }
  | { readonly type: 'withheld' }
  | { readonly type: 'approve-withheld'; readonly name: string }
  | { readonly type: 'not-found' };

const GET_ROUTES: Readonly<Record<string, ConsoleRoute>> = {
  '/favicon.ico': { type: 'favicon' },
  '/': { type: 'page' },
  '/api/events': { type: 'events' },
  '/api/approvals': { type: 'approvals' },
  '/api/approvals/closed': { type: 'closed-approvals' },
  '/api/calls': { type: 'calls' },
  '/api/receipts': { type: 'receipts' },
  '/api/policy': { type: 'policy' },
  '/api/verify': { type: 'verify' },
  '/api/unresolved': { type: 'unresolved' },
  '/api/withheld': { type: 'withheld' },
};

/** Map a request onto the one thing it asks for; anything else is `not-found`. */
export function routeConsoleRequest(method: string, path: string): ConsoleRoute {
  if (method === 'GET') {
    if (Object.hasOwn(GET_ROUTES, path)) return GET_ROUTES[path] as ConsoleRoute;
    const receipt = /^\/api\/receipts\/(.+)$/.exec(path);
    if (receipt !== null) return { type: 'receipt', receiptId: receipt[1] as string };
    const media = /^\/api\/media\/([0-9a-f]{64})$/.exec(path);
    if (media !== null) return { type: 'media', digest: media[1] as string };
    return { type: 'not-found' };
  }
  if (method === 'POST') {
    const approval = /^\/api\/approvals\/([A-Za-z0-9_]+)$/.exec(path);
    if (approval !== null) return { type: 'decide', approvalId: approval[1] as string };
    const withheld = /^\/api\/withheld\/([a-z0-9_]{1,64})\/approve$/.exec(path);
    if (withheld !== null) return { type: 'approve-withheld', name: withheld[1] as string };
  }
  return { type: 'not-found' };
}
