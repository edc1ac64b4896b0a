import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { approvalDecisionOf, readJson, receiptFilter } from './read-console-request.js';
import { RECEIPT_PAGE } from './receipt-feed.js';

const filterOf = (query: string) => receiptFilter(new URL(`http://127.0.0.1/api/receipts${query}`));

describe('receiptFilter', () => {
  it('takes the filters the address names, and the default page', () => {
    expect(filterOf('?tool=read_file&status=error&agent=planner&run=serve-1&q=token&since=5&before=9')).toEqual({
      tool: 'read_file',
      status: 'error',
      agent: 'planner',
      runId: 'serve-1',
      search: 'token',
      since: 5,
      before: 9,
      limit: RECEIPT_PAGE,
    });
    expect(filterOf('?tool=&since=-1&before=1.5&limit=abc')).toEqual({ limit: RECEIPT_PAGE });
  });

  it('bounds the page and the search text whatever the address asks', () => {
    expect(filterOf('?limit=100000').limit).toBe(200);
    expect(filterOf('?limit=20').limit).toBe(20);
    expect(filterOf(`?q=${'x'.repeat(500)}`).search).toHaveLength(200);
  });
});

describe('approvalDecisionOf', () => {
  it('reads an approval by its scope and a rejection with its reason, clipped', () => {
    expect(approvalDecisionOf({ decision: 'session' })).toEqual({ outcome: 'approve', scope: 'session', by: 'console' });
    expect(approvalDecisionOf({ decision: 'reject', reason: 'no' })).toEqual({ outcome: 'reject', by: 'console', reason: 'no' });
    expect(approvalDecisionOf({ decision: 'reject', reason: 'x'.repeat(300) })).toMatchObject({ reason: 'x'.repeat(200) });
    expect(approvalDecisionOf({ decision: 'reject', reason: 7 })).toEqual({ outcome: 'reject', by: 'console' });
  });

  it('reads anything else as no decision', () => {
    for (const body of [undefined, null, 'once', {}, { decision: 'approve' }, { decision: 'ALWAYS' }]) expect(approvalDecisionOf(body)).toBeUndefined();
  });
});

describe('readJson', () => {
  const requestOf = (chunks: string[]): IncomingMessage => Readable.from(chunks.map((chunk) => Buffer.from(chunk))) as unknown as IncomingMessage;

  it('parses a small body, and gives undefined for no JSON or one too large', async () => {
    expect(await readJson(requestOf(['{"decision":', '"once"}']))).toEqual({ decision: 'once' });
    expect(await readJson(requestOf(['{ not json']))).toBeUndefined();
    expect(await readJson(requestOf([`"${'x'.repeat(16 * 1024)}"`]))).toBeUndefined();
  });
});
