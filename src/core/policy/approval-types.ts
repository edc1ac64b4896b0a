import type { ActionDisplay } from '../action/display-action.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolCallView, ToolRisk } from '../tools/tool-types.js';
import type { ApprovalMode } from './policy-snapshot-types.js';
import type { MatchedRule, PolicyDecision } from './policy-types.js';

/** The governed action classes: what an interactive approval gates. */
export type ToolActionClass = 'fs_write' | 'process' | 'egress' | 'os';

/**
 * The one-line preview of a call, display only: where it really acts (the
 * resolved path, the whole argv quoted, the host), secret-shaped tokens
 * masked where they stand. The card's full account is `target`.
 */
export interface ToolActionPreview {
  /** The real path (after every symlink), workspace-relative when inside. */
  readonly path?: string;
  /** The whole argv, one line, elements quoted where a space or shell character would blur them. */
  readonly command?: string;
  readonly host?: string;
  /** For an HTTP egress tool: method and full URL (secret query values masked). */
  readonly request?: string;
  /** For calls a rule asked about that fit no class: the redacted argument projection. */
  readonly summary?: string;
}

/** Why a call reached a person: the policy's reason, the rules that asked, and, once the mode logic ran, the mode. */
export interface ApprovalReasons {
  /** `governed`, `rule`, `hook`, `risk`, `protected_path` or `classifier`. */
  readonly reason: string;
  /** Rules that asked, or that matched, with their text and where they came from. */
  readonly rules: readonly MatchedRule[];
  /** The approval mode that sent the call to a person (set by `createConfirm`). */
  readonly mode?: ApprovalMode;
  readonly protectedPath: boolean;
  /** The tool's risk, when the policy's `approveAtRisk` threshold is what asked. */
  readonly risk?: ToolRisk;
}

/**
 * The client session a call came in on (an MCP session of a gateway): what a
 * session approval is remembered for. `id` is a plain string that keys the
 * remembered approvals, so they can be held anywhere a string can; `client`
 * is what the client declared of itself (`clientInfo` of `initialize`),
 * shown to a person to tell clients apart: self-declared, hostile text that
 * authenticates nothing.
 */
export interface ApprovalSession {
  readonly id: string;
  readonly client?: { readonly name: string; readonly version: string };
}

export interface ToolApprovalRequest {
  readonly callId: string;
  readonly toolName: string;
  readonly toolVersion: string | undefined;
  readonly agent: string | undefined;
  /** The session the call came in on (`approval.session`), absent when the caller named none. */
  readonly session?: ApprovalSession;
  /** Absent when a rule asked about a call outside the governed classes. */
  readonly action: ToolActionClass | undefined;
  readonly preview: ToolActionPreview;
  /** Everything the decision covers, masked for display: real paths and flags, argv, method and URL, MCP tool and arguments. */
  readonly target: ActionDisplay | undefined;
  /**
   * How many values the preview, the target and the arguments mask. A card
   * says so, and a call with a masked part is never approved by a remembered
   * approval: what was approved before cannot be known to be this.
   */
  readonly masked: number;
  /**
   * The resolved action itself, unmasked, for in-process classification
   * (protected paths, the workspace, remembered-approval keys): a decision
   * never reads a masked string. Never serialised, logged, persisted or put
   * in an event.
   */
  readonly resolved: ResolvedAction | undefined;
  /** The action this approval is bound to. */
  readonly actionDigest: string;
  /** Redacted argument projection for display. */
  readonly arguments: unknown;
  readonly decision: PolicyDecision;
  /** Why approval is needed: a governed class, a rule, a hook or a risk threshold. */
  readonly why: 'governed' | 'rule' | 'hook' | 'risk';
  /** The reasons in full, for the card. */
  readonly reasons: ApprovalReasons;
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
  /**
   * The client session calls come in on. A session approval given for a call
   * of one session stands in only for calls of that same session; without a
   * session, approvals are remembered for every caller that names none.
   */
  readonly session?: ApprovalSession;
}
