import type { IncomingMessage } from 'node:http';
import type { ToolApprovalDecision } from '../core/internal.js';
import { RECEIPT_PAGE } from './receipt-feed.js';
import type { ReceiptFilter } from './console-types.js';

const MAX_BODY = 16 * 1024;
const MAX_RECEIPT_PAGE = 200;

/** The receipt list's filter from the address's query, every value optional and the page size bounded. */
export function receiptFilter(url: URL): ReceiptFilter {
  const get = (name: string): string | undefined => url.searchParams.get(name) || undefined;
  const since = Number(get('since'));
  const before = Number(get('before'));
  const limit = Number(get('limit'));
  return {
    ...(get('tool') === undefined ? {} : { tool: get('tool') }),
    ...(get('status') === undefined ? {} : { status: get('status') }),
    ...(get('agent') === undefined ? {} : { agent: get('agent') }),
    ...(get('run') === undefined ? {} : { runId: get('run') }),
    ...(get('q') === undefined ? {} : { search: get('q')?.slice(0, 200) }),
    ...(Number.isFinite(since) && since > 0 ? { since } : {}),
    ...(Number.isSafeInteger(before) && before > 0 ? { before } : {}),
    // A page is bounded whatever the address asks: a list of thousands would stall the page.
    limit: Number.isSafeInteger(limit) && limit > 0 ? Math.min(limit, MAX_RECEIPT_PAGE) : RECEIPT_PAGE,
  } as ReceiptFilter;
}

/** A person's decision as the console posts it: once, session or always approve; reject with an optional reason. Anything else is no decision. */
export function approvalDecisionOf(body: unknown): ToolApprovalDecision | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { decision, reason } = body as { decision?: unknown; reason?: unknown };
  const by = 'console';
  if (decision === 'once' || decision === 'session' || decision === 'always') return { outcome: 'approve', scope: decision, by };
  if (decision === 'reject') return { outcome: 'reject', by, ...(typeof reason === 'string' && reason.length > 0 ? { reason: reason.slice(0, 200) } : {}) };
  return undefined;
}

/** A request's JSON body, or undefined when it is larger than any the console sends or is no JSON. */
export async function readJson(request: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
