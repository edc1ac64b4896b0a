import type { JournalVerifyResult, ToolReceipt, ToolRegistry } from '../core/index.js';
import type { AuditSource, ReceiptFilter } from './console-types.js';

const CAPACITY = 2000;

/**
 * An in-memory audit source fed by `tool-result` events, for a console run
 * without a journal. Bounded: the oldest receipts fall off.
 */
export function createReceiptFeed(registry: ToolRegistry): AuditSource & { stop(): void } {
  const receipts: ToolReceipt[] = [];
  const stop = registry.on('tool-result', (event) => {
    receipts.push(event.receipt);
    if (receipts.length > CAPACITY) receipts.shift();
  });
  return {
    stop,
    list: (filter) => Promise.resolve(filterReceipts(receipts, filter)),
    get: (invocationId) => {
      const receipt = receipts.find((entry) => entry.invocationId === invocationId);
      return Promise.resolve(receipt === undefined ? undefined : { receipt });
    },
    verify: (): Promise<JournalVerifyResult> => Promise.resolve({ ok: true, rows: receipts.length }),
  };
}

export function filterReceipts(receipts: readonly ToolReceipt[], filter: ReceiptFilter): ToolReceipt[] {
  const matches = receipts.filter(
    (receipt) =>
      (filter.tool === undefined || receipt.tool === filter.tool) &&
      (filter.status === undefined || receipt.status === filter.status) &&
      (filter.agent === undefined || receipt.agent === filter.agent) &&
      (filter.since === undefined || receipt.startedAt >= filter.since),
  );
  return matches.reverse().slice(0, filter.limit ?? 200);
}
