import type {
  ApprovalMode,
  ConfirmActionHook,
  JournalVerifyResult,
  MatchedRule,
  MediaHandle,
  MediaStore,
  PolicyExplanation,
  RememberedApproval,
  RuleInForce,
  ToolApprovalDecision,
  ToolApprovalRequest,
  ToolReceipt,
  ToolRegistry,
  UnresolvedClaim,
} from '../core/internal.js';
import type { McpServerStatus, WithheldDefinition } from '../mcp/mcp-types.js';

/*
 * What the console API sends and its page reads. The page (./page, compiled
 * for the browser) is type-checked against these, so this file imports types
 * only, and only from modules free of Node: a renamed field fails the build,
 * not a person looking at an empty column.
 */

export type { JournalVerifyResult, ToolReceipt, UnresolvedClaim, WithheldDefinition };

/**
 * The client session a call came in on, as the console shows it: the first
 * characters of its id (never the whole id, which a client acts within its
 * session with) and what its client declared in `initialize`, hostile text
 * the page writes out as any other value.
 */
export interface ShownSession {
  readonly id: string;
  readonly client?: { readonly name: string; readonly version: string };
}

/** What is remembered for one session (`session` absent: for calls that named none). */
export interface RememberedSession {
  readonly session?: ShownSession;
  readonly approvals: readonly Omit<RememberedApproval, 'session'>[];
}

/**
 * A pending approval as the console shows it: the masked display of
 * everything the decision covers and why it asks. Never the resolved action
 * itself (unmasked) nor raw arguments: this goes to a browser.
 */
export interface PendingApproval {
  readonly id: string;
  readonly createdAt: number;
  readonly callId: string;
  readonly toolName: string;
  readonly agent: string | undefined;
  /** The client session that asked: a session approval covers its calls only. */
  readonly session?: ShownSession;
  readonly action: ToolApprovalRequest['action'];
  readonly preview: ToolApprovalRequest['preview'];
  readonly arguments: unknown;
  readonly actionDigest: string;
  readonly why: ToolApprovalRequest['why'];
  /** Where the call really acts, masked: real paths and flags, argv, method and URL, MCP server, tool and arguments. */
  readonly target: ToolApprovalRequest['target'];
  /** How many values what is shown masks. */
  readonly masked: number;
  /** Why it asks: the rules with their text and source, the mode, a protected path, the risk. */
  readonly reasons: ToolApprovalRequest['reasons'];
  /** The tool's own rendering of the call (redacted): the new content, the command. */
  readonly view?: ToolApprovalRequest['view'];
  /** A unified diff for file writes, when the enricher could build one. */
  readonly diff?: string;
}

/**
 * How a pending approval ended: decided (`approve`, `reject`), `withdrawn`
 * because its call ended first (cancelled, its client or session gone), or
 * `expired` with nobody deciding (a rejection).
 */
export type ApprovalOutcome = 'approve' | 'reject' | 'withdrawn' | 'expired';

/** An approval that is no longer pending, as the console lists it: no arguments, no preview. */
export interface ClosedApproval {
  readonly id: string;
  readonly callId: string;
  readonly toolName: string;
  readonly outcome: ApprovalOutcome;
  readonly closedAt: number;
}

export type ApprovalChange =
  | { readonly type: 'added'; readonly approval: PendingApproval }
  | ({ readonly type: 'resolved' } & ClosedApproval);

/** One row of the live view. */
export interface LiveCall {
  readonly callId: string;
  readonly tool: string;
  readonly agent: string | undefined;
  readonly at: number;
  readonly status: 'requested' | 'awaiting-approval' | 'ok' | 'error' | 'denied' | 'cancelled' | 'replayed';
  readonly decision?: string;
  readonly durationMs?: number;
  readonly code?: string;
  readonly invocationId?: string;
}

/** The first frame of `/api/events`: what the page shows before any change arrives. */
export interface ConsoleHello {
  readonly calls: readonly LiveCall[];
  readonly approvals: readonly PendingApproval[];
  readonly closed: readonly ClosedApproval[];
}

export interface ApprovalQueue {
  /** The confirm hook: it waits until someone decides (or the call is cancelled). */
  readonly confirm: ConfirmActionHook;
  pending(): readonly PendingApproval[];
  /** The most recently closed approvals, oldest first: decided, withdrawn or expired. */
  closed(): readonly ClosedApproval[];
  /** Resolve a pending approval; false (and nothing done) when it is no longer pending: decided, withdrawn or expired. */
  decide(id: string, decision: ToolApprovalDecision): boolean;
  subscribe(listener: (change: ApprovalChange) => void): () => void;
}


export interface ReceiptFilter {
  readonly tool?: string;
  readonly status?: string;
  readonly agent?: string;
  /** Epoch ms: receipts started at or after. */
  readonly since?: number;
  /** Only receipts of this run. */
  readonly runId?: string;
  /** Text the tool, agent, code, ids, summary, resolved target or arguments contain (case-insensitive). */
  readonly search?: string;
  /** The next page: receipts older than this row's `position`. */
  readonly before?: number;
  readonly limit?: number;
}

/** One row of `/api/receipts`, newest first: the receipt, its place in the list (for paging) and its run. */
export type ReceiptRow = ToolReceipt & {
  /** The journal's chain position, or the feed's count: ask `before` it for the next page. */
  readonly position: number;
  readonly runId?: string;
};

/** `/api/policy`: every rule in force with its source, and the floor no rule lifts. */
export interface PolicyDescription {
  readonly version: number;
  readonly mode?: ApprovalMode;
  readonly scope?: string;
  readonly workspace?: string;
  readonly rules?: readonly RuleInForce[];
  readonly allowedCommands?: readonly (string | readonly string[])[];
  readonly allowedCommandGlobs?: readonly (string | readonly string[])[];
  readonly allowedDomains?: readonly string[];
  readonly protectedPaths?: readonly string[];
  readonly mcpServers?: readonly string[];
  /** Each upstream server's status: up, down or retrying, its last failure and when it is tried again. */
  readonly servers?: readonly McpServerStatus[];
  /** The approvals remembered now, per session that got them. */
  readonly remembered?: readonly RememberedSession[];
  readonly warnings?: readonly string[];
}

export interface ReceiptDetail {
  readonly receipt: ToolReceipt;
  /** Position in the journal's hash chain, when the receipt is journaled. */
  readonly chain?: { readonly position: number; readonly hash: string };
  /** The policy's explanation of the decision as it stands now, or the rules the receipt recorded when it cannot be explained. */
  readonly explanation?: PolicyExplanation | readonly MatchedRule[];
}

/** Where the console reads receipts; the SQLite journal provides one, else an in-memory feed is used. */
export interface AuditSource {
  list(filter: ReceiptFilter): Promise<readonly ReceiptRow[]>;
  get(invocationId: string): Promise<ReceiptDetail | undefined>;
  verify(): Promise<JournalVerifyResult>;
  /** The attachment a receipt lists under `handle`; without it the console serves no media. */
  attachment?(handle: string): Promise<MediaHandle | undefined>;
}


/** A withheld definition as the console shows it: with what changed since it was approved, when that is known. */
export interface WithheldReview extends WithheldDefinition {
  /** A unified diff of the approved and the offered definition (`-` approved, `+` offered). */
  readonly changes?: string;
  /** The approved definition was kept, but too large, or too unlike the offered one, to compare line by line in time. */
  readonly uncompared?: true;
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
  readonly describePolicy?: () => PolicyDescription;
  readonly withheld?: WithheldSource;
  /** Claims a crash left open (their action is refused until an operator resolves them), for the Live view. */
  readonly unresolved?: () => Promise<readonly UnresolvedClaim[]>;
  /** Where the attachments the receipts list are kept (the gateway's `.toolgate/spill/media/`); without it the console serves no media. */
  readonly media?: MediaStore;
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
