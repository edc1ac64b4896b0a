import type { ActionDisplay } from '../action/display-action.js';
import type { MediaHandle } from '../host/tool-host.js';
import type { ApprovalScope } from '../policy/approval-types.js';
import type { MatchedRule } from '../policy/policy-types.js';
import type { ToolEffect, ToolRisk } from '../tools/tool-types.js';

export type ReceiptStatus = 'ok' | 'error' | 'denied' | 'cancelled' | 'replayed';

/** Receipt tiers: T0 (read) … T4 (critical), mapped from risk. */
export type ApprovalTier = 'T0' | 'T1' | 'T2' | 'T3' | 'T4';

export interface ReceiptApproval {
  readonly outcome: 'approve' | 'reject' | 'not-required';
  /** How it was decided: a human prompt, a mode, a remembered approval, a pre-approved digest. */
  readonly how?: string;
  readonly scope?: ApprovalScope;
  readonly by?: string;
  readonly at?: number;
}

export interface ReceiptPolicy {
  readonly decision: 'allow' | 'ask' | 'deny' | 'none';
  readonly version: number | undefined;
  readonly rules: readonly MatchedRule[];
}

/** An immutable record of one call: what was asked, what was decided, what happened. */
export interface ToolReceipt {
  readonly invocationId: string;
  readonly callId: string;
  readonly tool: string;
  readonly version: string | undefined;
  readonly agent: string | undefined;
  /** The enclosing call's id, for nested calls. */
  readonly parent: string | undefined;
  readonly status: ReceiptStatus;
  /** `OK` or the error code. */
  readonly code: string;
  readonly exitCode?: number;
  /** One line, redacted and bounded. */
  readonly outputSummary: string;
  readonly structuredOutput?: unknown;
  readonly affectedEntities: readonly string[];
  /** Where the call acted, resolved (real paths and flags, the whole argv, method and URL, MCP server and tool), masked for display. */
  readonly target?: ActionDisplay;
  readonly inputDigest: string | undefined;
  readonly actionDigest: string | undefined;
  readonly policy: ReceiptPolicy;
  readonly approval: ReceiptApproval;
  readonly effect: ToolEffect;
  readonly risk: ToolRisk;
  readonly tier: ApprovalTier;
  readonly startedAt: number;
  readonly durationMs: number;
  /** The media a successful call returned, by content-addressed handle, type and size (never the bytes): what a replay restores. */
  readonly attachments?: readonly MediaHandle[];
  /** Spill handle when the model saw a preview. */
  readonly spill?: { readonly handle: string; readonly bytes: number };
  /** Redacted argument projection. */
  readonly arguments: unknown;
}
