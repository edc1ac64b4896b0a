// The web console and the approval queue behind it.
export {
  createApprovalQueue,
  type ApprovalChange,
  type ApprovalOutcome,
  type ApprovalQueue,
  type ApprovalQueueOptions,
  type ClosedApproval,
  type PendingApproval,
} from './approval-queue.js';
export { startConsole } from './create-console-server.js';
export type { AuditSource, ConsoleOptions, ConsoleServer, PolicyDescription, ReceiptDetail, ReceiptFilter, ReceiptRow, RememberedSession, ShownSession, WithheldSource } from './console-types.js';
