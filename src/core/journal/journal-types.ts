import type { ToolReceipt } from '../receipts/receipt-types.js';

/**
 * The durable effect bracket (stages 10 and 19). An effect-tier call writes
 * its claim before the host is touched and settles after bounding; a crash
 * in between leaves an unresolved claim that is reported, never silently
 * re-executed. `toolgate/sqlite` implements this; the engine only calls it.
 */
export interface JournalPrepareInput {
  /** Idempotency key: action digest plus call id. */
  readonly key: string;
  readonly callId: string;
  readonly runId: string | undefined;
  readonly toolName: string;
  readonly toolVersion: string | undefined;
  readonly agent: string | undefined;
  readonly actionDigest: string;
  readonly inputDigest: string;
  /** Redacted argument projection, safe to store. */
  readonly arguments: unknown;
  readonly tier: 'record' | 'effect';
  readonly startedAt: number;
}

/** A previously settled result for the same key. */
export interface RecordedResult {
  readonly ok: boolean;
  readonly value: unknown;
  readonly content: string;
  readonly error?: { readonly code: string; readonly message: string; readonly name?: string; readonly reason?: string };
  readonly receipt: ToolReceipt;
}

export type JournalPrepareResult =
  | { readonly status: 'claimed'; readonly claim: JournalClaim }
  | { readonly status: 'recorded'; readonly recorded: RecordedResult };

export interface JournalClaim {
  readonly key: string;
  readonly claimId: string;
}

export interface JournalSettleInput {
  readonly ok: boolean;
  readonly value: unknown;
  readonly content: string;
  readonly error?: RecordedResult['error'];
  readonly receipt: ToolReceipt;
}

export interface UnresolvedClaim {
  readonly key: string;
  readonly claimId: string;
  readonly toolName: string;
  readonly callId: string;
  readonly runId: string | undefined;
  readonly startedAt: number;
}

export interface JournalVerifyResult {
  readonly ok: boolean;
  readonly rows: number;
  /** The first row whose hash or signature does not match, or where a gap begins. */
  readonly firstBadRow?: { readonly table: string; readonly id: number; readonly problem: string };
}

export interface JournalEvent {
  readonly type: string;
  readonly at: number;
  readonly data: unknown;
}

export interface Journal {
  /** Claim before dispatch (effect tier), or return the recorded result for the key. */
  prepare(input: JournalPrepareInput): Promise<JournalPrepareResult>;
  /** Settle a claim (effect tier) or record a receipt (record tier, `claim` undefined). */
  settle(claim: JournalClaim | undefined, input: JournalSettleInput): Promise<void>;
  /** Drop a claim whose dispatch never started. */
  discard(claim: JournalClaim): Promise<void>;
  lookup(key: string): Promise<RecordedResult | undefined>;
  append(event: JournalEvent): Promise<void>;
  unresolved(): Promise<readonly UnresolvedClaim[]>;
  verify(): Promise<JournalVerifyResult>;
}
