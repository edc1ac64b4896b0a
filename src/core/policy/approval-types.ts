import type { ToolCallView } from '../tools/tool-types.js';
import type { PolicyDecision } from './policy-types.js';

/** The governed action classes: what an interactive approval gates. */
export type ToolActionClass = 'fs_write' | 'process' | 'egress' | 'os';

/** Secret-free, display-only. Never a full URL or query, never a secret. */
export interface ToolActionPreview {
  readonly path?: string;
  readonly command?: string;
  readonly host?: string;
  /** For calls a rule asked about that fit no class: the redacted argument projection. */
  readonly summary?: string;
}

export interface ToolApprovalRequest {
  readonly callId: string;
  readonly toolName: string;
  readonly toolVersion: string | undefined;
  readonly agent: string | undefined;
  /** Absent when a rule asked about a call outside the governed classes. */
  readonly action: ToolActionClass | undefined;
  readonly preview: ToolActionPreview;
  /**
   * The same selection, unscrubbed, for in-process classification only (a
   * protected-path check must not read a scrubbed path). Never serialised,
   * logged, persisted or put in an event.
   */
  readonly unredactedPreview: ToolActionPreview;
  /** The action this approval is bound to. */
  readonly actionDigest: string;
  /** Redacted argument projection for display. */
  readonly arguments: unknown;
  readonly decision: PolicyDecision;
  /** Why approval is needed: a governed class, a rule, a hook or a risk threshold. */
  readonly why: 'governed' | 'rule' | 'hook' | 'risk';
  /** The tool's own rendering of the call (`presentCall`), secrets redacted: what a UI shows as the body (a file's new content, a command). */
  readonly view?: ToolCallView;
}

export type ApprovalScope = 'once' | 'session' | 'always';

export type ToolApprovalDecision =
  | { readonly outcome: 'approve'; readonly scope?: ApprovalScope; readonly by?: string }
  | {
      readonly outcome: 'reject';
      readonly reason?: string;
      readonly by?: string;
      /**
       * Nobody could be asked (no console, no trusted client, no terminal):
       * the call is denied as `no_approval_hook`, not as a person's
       * rejection, and `reason` says how to approve.
       */
      readonly noApprover?: boolean;
    };

/** Host-injected consent hook. Should honour `signal`: an abort while prompting takes the cancel path. */
export type ConfirmActionHook = (request: ToolApprovalRequest, signal?: AbortSignal) => Promise<ToolApprovalDecision>;

/**
 * Present on the dispatch context ⇒ the interactive approval regime is
 * active. Absent ⇒ the author-trust workflow path.
 */
export interface ToolApprovalContext {
  /** Absent under an active regime ⇒ denied, `no_approval_hook` (fail closed). */
  readonly confirm?: ConfirmActionHook;
  /**
   * Action digests approved ahead of dispatch (for example from
   * `registry.prepare` and a resumed run). A call needing approval whose
   * digest is not listed falls through to `confirm`.
   */
  readonly approvedActionDigests?: ReadonlySet<string> | readonly string[];
}
