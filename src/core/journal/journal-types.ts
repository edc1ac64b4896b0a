import type { ActionDisplay } from '../action/display-action.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import type { MediaHandle } from '../host/tool-host.js';
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
  /** The resolved target as a person reads it (masked), when the call resolved one: what an operator checks before resolving a claim. */
  readonly target?: ActionDisplay;
  readonly tier: 'record' | 'effect';
  readonly startedAt: number;
}

/** A previously settled result for the same key. */
export interface RecordedResult {
  readonly ok: boolean;
  readonly value: unknown;
  /** The value was not kept (larger than the journal keeps, or with no JSON form): the recording holds the content and receipt, and answers no retry or replay. */
  readonly valueNotKept?: true;
  readonly content: string;
  readonly error?: { readonly code: string; readonly message: string; readonly name?: string; readonly reason?: string };
  /** The media the call returned, by handle (never the bytes, which stay in the host's media store); the receipt lists the same. */
  readonly attachments?: readonly MediaHandle[];
  readonly receipt: ToolReceipt;
}

/**
 * `refused`: the journal will not let the body run — an unresolved claim
 * holds the key (a crash left it; an operator decides), or a replay-only
 * journal has no recording. The error is the call's typed outcome.
 */
export type JournalPrepareResult =
  | { readonly status: 'claimed'; readonly claim: JournalClaim }
  | { readonly status: 'recorded'; readonly recorded: RecordedResult }
  | { readonly status: 'refused'; readonly error: ToolgateError };

export interface JournalClaim {
  readonly key: string;
  readonly claimId: string;
}

export interface JournalSettleInput {
  readonly ok: boolean;
  readonly value: unknown;
  readonly content: string;
  readonly error?: RecordedResult['error'];
  /** The media a successful call returned, by handle, type and size. */
  readonly attachments?: readonly MediaHandle[];
  readonly receipt: ToolReceipt;
  /**
   * `JSON.stringify(value)` as the call rendered it for the model, when the
   * value is long and the content was made from it: a journal may write
   * this text instead of building it again. Absent otherwise.
   */
  readonly valueJson?: string | undefined;
}

export interface UnresolvedClaim {
  readonly key: string;
  readonly claimId: string;
  readonly toolName: string;
  readonly callId: string;
  readonly runId: string | undefined;
  readonly startedAt: number;
  /** Who held the claim, for the operator (e.g. `pid 123 on host-a`). */
  readonly holder?: string;
  readonly agent?: string;
  /** The action digest: every later call of the same action is refused until the claim is resolved. */
  readonly actionDigest?: string;
  /** The redacted arguments, as the claim recorded them. */
  readonly arguments?: unknown;
  /** The resolved target, when the claim recorded one. */
  readonly target?: ActionDisplay;
}

/**
 * An operator's answer to an unresolved claim. `failed`: the effect did not
 * happen (or may safely happen again). `done`: it happened. Either way the
 * answer is journaled and the action is no longer refused.
 */
export type ClaimResolution = 'failed' | 'done';

/** A filter over recorded results, for replay. */
export interface RecordingQuery {
  readonly runId: string;
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
  /**
   * `tiered` (default): the pipeline consults the journal for `record` and
   * `effect` tools only. `all`: every call is journaled, a `none` tool as
   * `record` (as `effect` when its effect is not `read`) — what a recording
   * session, a gateway or a replay-only journal needs.
   */
  readonly coverage?: 'tiered' | 'all';
  /** Claim before dispatch (effect tier), or return the recorded result for the key. */
  prepare(input: JournalPrepareInput): Promise<JournalPrepareResult>;
  /**
   * Settle a claim after bounding: record the result and receipt. The
   * pipeline settles only calls it claimed; `claim` undefined records a
   * receipt outside the bracket (direct use, e.g. importing history).
   */
  settle(claim: JournalClaim | undefined, input: JournalSettleInput): Promise<void>;
  /** Drop a claim whose dispatch never started. */
  discard(claim: JournalClaim): Promise<void>;
  lookup(key: string): Promise<RecordedResult | undefined>;
  append(event: JournalEvent): Promise<void>;
  unresolved(): Promise<readonly UnresolvedClaim[]>;
  verify(): Promise<JournalVerifyResult>;
  /** The settled results of one run, in journal order (for replay). */
  recordings?(query: RecordingQuery): Promise<readonly RecordedResult[]>;
}
