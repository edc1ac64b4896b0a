import type { JournalVerifyResult, ToolReceipt, ToolRegistry, UnresolvedClaim } from '../core/index.js';
import type { WithheldDefinition } from '../mcp/index.js';
import type { ApprovalQueue } from './approval-queue.js';

export interface ReceiptFilter {
  readonly tool?: string;
  readonly status?: string;
  readonly agent?: string;
  /** Epoch ms: receipts started at or after. */
  readonly since?: number;
  readonly limit?: number;
}

export interface ReceiptDetail {
  readonly receipt: ToolReceipt;
  /** Position in the journal's hash chain, when the receipt is journaled. */
  readonly chain?: { readonly position: number; readonly hash: string };
  /** The policy's explanation of the decision, when available. */
  readonly explanation?: unknown;
}

/** Where the console reads receipts; the SQLite journal provides one, else an in-memory feed is used. */
export interface AuditSource {
  list(filter: ReceiptFilter): Promise<readonly ToolReceipt[]>;
  get(invocationId: string): Promise<ReceiptDetail | undefined>;
  verify(): Promise<JournalVerifyResult>;
}


export interface WithheldSource {
  /** What each withheld definition offers now: shown in full, so a person reviews what they approve. */
  list(): Promise<readonly WithheldDefinition[]>;
  /** Approve `name` only if it still offers the definition whose digest the person reviewed. */
  approve(name: string, digest: string): Promise<void>;
}

export interface ConsoleOptions {
  readonly registry: ToolRegistry;
  readonly approvals: ApprovalQueue;
  readonly audit?: AuditSource;
  /** The policy in force, as shown on the Policy view. */
  readonly describePolicy?: () => unknown;
  readonly withheld?: WithheldSource;
  /** Claims a crash left open (their action is refused until an operator resolves them), for the Live view. */
  readonly unresolved?: () => Promise<readonly UnresolvedClaim[]>;
  /** Default 0: an ephemeral port. Always bound to 127.0.0.1. */
  readonly port?: number;
  /** Fixed token (tests); default: random per start. */
  readonly token?: string;
}

export interface ConsoleServer {
  readonly port: number;
  readonly token: string;
  /** The start-up URL with the token. */
  readonly url: string;
  close(): Promise<void>;
}
