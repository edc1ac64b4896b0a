import { ToolgateError } from './toolgate-error.js';
import { describeIssues, safeName, type ValidationIssue } from './describe-issues.js';

/** The tool name is not an exact match in the caller's scope. Never fuzzy. */
export class UnknownToolError extends ToolgateError {
  /** The names the caller's scope can see, sorted. */
  readonly availableTools: readonly string[];
  constructor(requested: string, availableTools: readonly string[]) {
    const shown = availableTools.slice(0, 64).join(', ');
    const more = availableTools.length > 64 ? ` and ${availableTools.length - 64} more` : '';
    super(
      'UNKNOWN_TOOL',
      `Unknown tool ${safeName(requested)}. Call one of: ${shown.length > 0 ? shown + more : '(no tools are available)'}.`,
      { loopCorrectable: true },
    );
    this.availableTools = availableTools;
  }
}

/** Two definitions claim the same name (or the same name and version). */
export class DuplicateToolError extends ToolgateError {
  constructor(tool: string, version?: string, detail?: string) {
    super('DUPLICATE_TOOL', `Tool "${tool}"${version === undefined ? '' : ` version ${version}`} is defined more than once${detail === undefined ? '' : `: ${detail}`}.`, { tool });
  }
}

/** A definition is malformed; raised while the registry is built, never half-built. */
export class ToolDefinitionError extends ToolgateError {
  /** The definition field at fault, e.g. `name`, `timeoutMs`, `input`. */
  readonly field: string;
  constructor(tool: string, field: string, problem: string, cause?: unknown) {
    super('TOOL_DEFINITION_INVALID', `Tool ${safeName(tool)}: field "${field}" ${problem}.`, { tool, cause });
    this.field = field;
  }
}

/** A caller or configuration mistake (not a tool-level failure): thrown, not returned. */
export class ConfigurationError extends ToolgateError {
  readonly field: string;
  /** What is wrong with the field, in the words of the message, without the field. */
  readonly problemText: string;
  constructor(field: string, problem: string) {
    super('CONFIGURATION_INVALID', `Configuration "${field}" ${problem}.`);
    this.field = field;
    this.problemText = problem;
  }
}

/** Why a policy refused a call. Open-ended: policies may add their own. */
export type ToolPolicyDenyReason =
  | 'not_granted'
  | 'provider_executed'
  | 'command_not_allowed'
  | 'domain_not_allowed'
  | 'insecure_url'
  | 'scope_denied'
  | 'protected_path'
  | 'gate_required'
  | 'rate_limited'
  | 'rule_denied'
  | 'hook_denied'
  | 'plan_mode'
  | 'approval_unavailable'
  | 'server_not_allowed'
  | 'query_rejected'
  | 'definition_withheld'
  | 'secret_argument'
  | 'unresolved_claim'
  | 'symlink_refused'
  | 'target_unavailable'
  | 'target_changed'
  | (string & {});

export interface ToolPolicyErrorOptions {
  /** A secret-free explanation; defaults to one derived from the reason. */
  readonly detail?: string | undefined;
  /** A pure scope denial, refused before any side effect: safe to feed back. */
  readonly recoverable?: boolean | undefined;
  /** For `rate_limited`: when a retry may succeed. */
  readonly retryAfterMs?: number | undefined;
  /** The rule that decided, for audit. */
  readonly ruleId?: string | undefined;
  readonly cause?: unknown;
}

const policyReasonText: Record<string, string> = {
  not_granted: 'is not granted to this caller',
  provider_executed: 'was executed by the model provider and cannot be dispatched here',
  command_not_allowed: 'was refused: the command is not in the allowed commands',
  domain_not_allowed: 'was refused: the domain is not in the allowed domains',
  insecure_url: 'was refused: only https URLs without credentials are allowed',
  scope_denied: 'was refused: the path is outside the allowed filesystem scope',
  protected_path: 'was refused: the path is protected',
  gate_required: 'needs a gate approval, which this call does not have',
  rate_limited: 'was refused: the rate limit is exceeded',
  rule_denied: 'was refused by a policy rule',
  hook_denied: 'was refused by a pre-execute hook',
  plan_mode: 'was refused: plan mode runs no governed call',
  approval_unavailable: 'needs an approval, but no approval regime is active',
  server_not_allowed: 'was refused: the MCP server is not configured',
  query_rejected: 'was refused: the search query is not acceptable',
  definition_withheld: 'was withheld: its definition changed since it was approved',
  secret_argument: 'was refused: a secret-tainted value reached an argument',
  unresolved_claim: 'was refused: an earlier dispatch of the same action may have started and never settled; an operator must resolve its journal claim',
  symlink_refused: 'was refused: a symlink in the path leads out of the workspace or nowhere',
  target_unavailable: 'was refused: its target could not be resolved',
  target_changed: 'was refused: its target changed after it was checked and approved (a link swapped in, a file replaced); check the path and call again',
};

/** A guardrail or grant denial, decided before any side effect. */
export class ToolPolicyError extends ToolgateError {
  readonly reason: ToolPolicyDenyReason;
  readonly retryAfterMs: number | undefined;
  readonly ruleId: string | undefined;
  constructor(tool: string, reason: ToolPolicyDenyReason, options: ToolPolicyErrorOptions = {}) {
    const text = options.detail ?? policyReasonText[reason] ?? `was refused by policy (${reason})`;
    super('POLICY_DENIED', `Tool "${tool}" ${text}.`, {
      tool,
      cause: options.cause,
      recoverable: options.recoverable ?? false,
      retryable: reason === 'rate_limited',
    });
    this.reason = reason;
    this.retryAfterMs = options.retryAfterMs;
    this.ruleId = options.ruleId;
  }

  /** The reason travels with the projection, so observers (metrics, audit) can count denials by reason. */
  override toJSON(): ReturnType<ToolgateError['toJSON']> & { reason: string } {
    return { ...super.toJSON(), reason: this.reason };
  }
}

export type ToolDeniedByUserReason = 'user_rejected' | 'no_approval_hook' | 'approval_error' | 'approval_mismatch';

const userReasonText: Record<ToolDeniedByUserReason, string> = {
  user_rejected: 'was rejected by the approver',
  no_approval_hook: 'needs an approval, but no approval hook is wired (denied, fail closed)',
  approval_error: 'could not obtain an approval: the approval hook failed (denied, fail closed)',
  approval_mismatch: 'was refused: its arguments differ from the approved action',
};

/** An interactive approval denial. Never retried, never loop-correctable. */
export class ToolDeniedByUserError extends ToolgateError {
  readonly reason: ToolDeniedByUserReason;
  /** The approver's display-safe label, when it gave one. */
  readonly label: string | undefined;
  constructor(tool: string, reason: ToolDeniedByUserReason, options: { label?: string | undefined; cause?: unknown } = {}) {
    const label = options.label === undefined ? '' : `: ${options.label}`;
    super('DENIED_BY_USER', `Tool "${tool}" ${userReasonText[reason]}${label}.`, { tool, cause: options.cause });
    this.reason = reason;
    this.label = options.label;
  }
}

/** The complete effective arguments failed validation. The model can fix this. */
export class ToolArgsInvalidError extends ToolgateError {
  readonly issues: readonly ValidationIssue[];
  constructor(tool: string, issues: readonly ValidationIssue[], problem?: string) {
    super('ARGS_INVALID', `Invalid arguments for tool "${tool}": ${problem ?? describeIssues(issues)}.`, {
      tool,
      loopCorrectable: true,
    });
    this.issues = issues;
  }
}

/** The host lacks the capability the tool needs: a wiring gap, not the model's fault. */
export class ToolUnavailableError extends ToolgateError {
  readonly capability: string;
  constructor(tool: string, capability: string, detail?: string, cause?: unknown) {
    super(
      'TOOL_UNAVAILABLE',
      `Tool "${tool}" is unavailable: ${detail ?? `the host does not provide the "${capability}" capability`}.`,
      { tool, cause },
    );
    this.capability = capability;
  }
}

/**
 * The registry already runs as many calls as it may at once, and as many
 * more wait their turn (`limits.maxConcurrentCalls`, `maxQueuedCalls`): this
 * one was not run. Nothing started, so a later attempt may succeed.
 */
export class ToolBusyError extends ToolgateError {
  constructor(tool: string, running: number, waiting: number) {
    const counted = `${running} ${running === 1 ? 'call is' : 'calls are'} running and ${waiting} more ${waiting === 1 ? 'is' : 'are'} waiting their turn`;
    super('TOOL_UNAVAILABLE', `Tool "${tool}" was not run: ${counted}. Retry once some have finished.`, {
      tool,
      retryable: true,
      recoverable: true,
    });
  }
}

/** The tool body or host failed with an untyped error. Kept off the message: see `cause`. */
export class ToolExecutionError extends ToolgateError {
  constructor(tool: string, options: { cause?: unknown; recoverable?: boolean; detail?: string } = {}) {
    super('EXECUTION_FAILED', `Tool "${tool}" failed${options.detail === undefined ? '' : `: ${options.detail}`}.`, {
      tool,
      cause: options.cause,
      retryable: true,
      recoverable: options.recoverable ?? false,
    });
  }
}

/** The call exceeded its time budget. */
export class ToolTimeoutError extends ToolgateError {
  readonly timeoutMs: number;
  constructor(tool: string, timeoutMs: number) {
    super('TOOL_TIMEOUT', `Tool "${tool}" timed out after ${timeoutMs} ms.`, { tool, retryable: true });
    this.timeoutMs = timeoutMs;
  }
}

/** The caller cancelled. `ABORTED_BEFORE_DISPATCH` proves the body never started. */
export class ToolCancelledError extends ToolgateError {
  constructor(tool: string, when: 'before-dispatch' | 'after-dispatch') {
    super(
      when === 'before-dispatch' ? 'ABORTED_BEFORE_DISPATCH' : 'ABORTED',
      when === 'before-dispatch' ? `Tool "${tool}" was cancelled before it started.` : `Tool "${tool}" was cancelled.`,
      { tool },
    );
  }
}

/** The tool returned a value that does not match its declared output schema. */
export class ToolOutputInvalidError extends ToolgateError {
  readonly issues: readonly ValidationIssue[];
  constructor(tool: string, issues: readonly ValidationIssue[], problem?: string) {
    super('OUTPUT_INVALID', `Tool "${tool}" returned an invalid result: ${problem ?? describeIssues(issues)}.`, { tool });
    this.issues = issues;
  }
}

/**
 * Why a recording that was found still cannot be replayed: its media are no
 * longer in the media store (retention removed them), the stored bytes no
 * longer hash to their handle, or its list of attachments is not the one
 * its receipt vouches for.
 */
export type ReplayMediaProblem = 'media_missing' | 'media_changed' | 'attachments_unvouched';

/** Why a recording that was found cannot answer the call: its media (`ReplayMediaProblem`), or a value the journal does not keep. */
export type ReplayProblem = ReplayMediaProblem | 'value_not_kept';

const REPLAY_PROBLEM_TEXT: Readonly<Record<ReplayProblem, string>> = {
  media_missing: 'returned media that the media store no longer holds intact (retention may have removed them, or they were changed)',
  media_changed: 'returned media whose stored bytes no longer match their handle',
  attachments_unvouched: 'has a recorded list of media attachments that its receipt does not vouch for',
  value_not_kept: 'returned a value the journal does not keep (too large, or with no JSON form)',
};

/** Replay found no recording for the call, or a recording that cannot answer it (`reason`). Either way the body never runs. */
export class ReplayMissError extends ToolgateError {
  readonly reason: ReplayProblem | undefined;
  constructor(tool: string, reason?: ReplayProblem) {
    super(
      'REPLAY_MISS',
      reason === undefined ? `Tool "${tool}" has no recorded result to replay for this action.` : `Tool "${tool}" ${REPLAY_PROBLEM_TEXT[reason]}: the recorded call is not replayed.`,
      { tool },
    );
    this.reason = reason;
  }
}
