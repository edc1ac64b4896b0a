import type { JournalVerifyResult, ToolReceipt, ToolRegistry } from '../core/internal.js';
import type { AuditSource, ReceiptFilter, ReceiptRow } from './console-types.js';

const CAPACITY = 2000;

/** How many receipts a page of the console's list holds unless it asks for another size. */
export const RECEIPT_PAGE = 50;

/**
 * An in-memory audit source fed by `tool-result` events, for a console run
 * without a journal. Bounded: the oldest receipts fall off.
 */
export function createReceiptFeed(registry: ToolRegistry): AuditSource & { stop(): void } {
  const rows: ReceiptRow[] = [];
  let count = 0;
  const stop = registry.on('tool-result', (event) => {
    count += 1;
    rows.push({ ...event.receipt, position: count });
    if (rows.length > CAPACITY) rows.shift();
  });
  return {
    stop,
    list: (filter) => Promise.resolve(filterReceipts(rows, filter)),
    get: (invocationId) => {
      const row = rows.find((entry) => entry.invocationId === invocationId);
      if (row === undefined) return Promise.resolve(undefined);
      const { position: _position, ...receipt } = row;
      return Promise.resolve({ receipt });
    },
    attachment: (handle) => Promise.resolve(rows.findLast((row) => row.attachments?.some((entry) => entry.handle === handle))?.attachments?.find((entry) => entry.handle === handle)),
    verify: (): Promise<JournalVerifyResult> => Promise.resolve({ ok: true, rows: rows.length }),
  };
}

/** The fields a search reads: what a person knows a call by, never field names. */
function searchable(receipt: ToolReceipt): string {
  const { tool, agent, code, callId, invocationId, outputSummary, target, arguments: args } = receipt;
  return [tool, agent, code, callId, invocationId, outputSummary, target === undefined ? undefined : JSON.stringify(target), JSON.stringify(args)]
    .filter((part) => part !== undefined)
    .join(' ')
    .toLowerCase();
}

export function filterReceipts(rows: readonly ReceiptRow[], filter: ReceiptFilter): ReceiptRow[] {
  const search = filter.search?.toLowerCase();
  const matches = rows.filter(
    (row) =>
      (filter.tool === undefined || row.tool === filter.tool) &&
      (filter.status === undefined || row.status === filter.status) &&
      (filter.agent === undefined || row.agent === filter.agent) &&
      (filter.since === undefined || row.startedAt >= filter.since) &&
      (filter.runId === undefined || row.runId === filter.runId) &&
      (filter.before === undefined || row.position < filter.before) &&
      (search === undefined || search === '' || searchable(row).includes(search)),
  );
  return matches.reverse().slice(0, filter.limit ?? RECEIPT_PAGE);
}
