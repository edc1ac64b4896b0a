import type { ApprovalScope, ToolApprovalRequest } from './approval-types.js';
import type { ApprovalMode } from './policy-snapshot-types.js';
import type { MatchedRule, PolicyDecision } from './policy-types.js';

/** The approval modes, from the one that lets least run without a person to the one that lets most. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ['plan', 'ask', 'accept-edits', 'auto'];

export interface ApprovalModeInput {
  /** The mode in force (auto already lowered to ask where the managed policy disables it). */
  readonly mode: ApprovalMode;
  /** The policy's decision now (re-checked against a live policy), not the one the call was admitted with. */
  readonly decision: PolicyDecision;
  /** The call: its action class, why it is governed, its resolved files and the pipeline's protected-path finding. */
  readonly request: ToolApprovalRequest;
  /** The approval remembered for this exact target, if any. */
  readonly remembered: { readonly scope: ApprovalScope; readonly mode: ApprovalMode } | undefined;
  /** Whether a matched allow rule is one an earlier `always` persisted. */
  readonly persisted: ((rule: MatchedRule) => boolean) | undefined;
  /** Whether auto mode has a classifier to consult. */
  readonly classifier: boolean;
  readonly isProtected: (path: string) => boolean;
  readonly insideWorkspace: (path: string) => boolean;
}

/**
 * What the mode logic makes of a call before any person is asked:
 * - `approve` / `reject`: settled, `by` says who settled it;
 * - `ask`: a person decides; `reason` and `protectedPath` are what they are shown;
 * - `classify`: auto mode, no rule allows it: the classifier decides, and if it
 *   answers `ask`, a person does (the target is not protected).
 */
export type ApprovalModeVerdict =
  | { readonly kind: 'approve'; readonly by: string; readonly scope?: ApprovalScope }
  | { readonly kind: 'reject'; readonly reason: string; readonly by: string }
  | { readonly kind: 'ask'; readonly reason: string; readonly protectedPath: boolean }
  | { readonly kind: 'classify' };

export function decideApprovalMode(input: ApprovalModeInput): ApprovalModeVerdict {
  const { mode, decision, request, remembered, persisted } = input;
  if (decision.kind === 'deny') return { kind: 'reject', reason: 'the policy changed and now refuses this call', by: 'policy' };
  if (mode === 'plan') return { kind: 'reject', reason: 'plan mode: governed calls do not run', by: 'mode:plan' };
  // Classification reads the resolved action (real paths), never the masked preview. Any path being
  // protected — as spelled, where it really is, or by the policy's own ask — is enough.
  const files = request.resolved?.files ?? [];
  const protectedPath =
    files.some((file) => file.protected || input.isProtected(file.path) || input.isProtected(file.real)) ||
    (decision.kind === 'ask' && decision.reason === 'protected_path') ||
    request.reasons.protectedPath;
  if (protectedPath) return { kind: 'ask', reason: 'protected_path', protectedPath };
  if (decision.kind === 'ask') return { kind: 'ask', reason: decision.reason ?? 'rule', protectedPath };
  // A remembered approval stands in for the default prompt only: an explicit ask (rule, risk) asks every time.
  if (remembered !== undefined && APPROVAL_MODES.indexOf(mode) >= APPROVAL_MODES.indexOf(remembered.mode)) return { kind: 'approve', scope: remembered.scope, by: 'remembered' };
  // A rule an earlier `always` wrote is a remembered approval too: a call with a masked part cannot be told from the
  // one the person approved, so no such rule approves it, in any mode.
  const rememberedRule = (rule: MatchedRule): boolean => rule.decision === 'allow' && persisted !== undefined && persisted(rule);
  if (request.masked === 0 && decision.matched.some(rememberedRule)) return { kind: 'approve', scope: 'always', by: 'remembered' };
  const workspaceEdit = request.action === 'fs_write' && files.length > 0 && files.every((file) => !file.outside && input.insideWorkspace(file.real));
  if (mode === 'accept-edits' && workspaceEdit) return { kind: 'approve', by: 'mode:accept-edits' };
  if (mode === 'auto') {
    if (decision.matched.some((rule) => rule.decision === 'allow' && (request.masked === 0 || !rememberedRule(rule)))) return { kind: 'approve', by: 'mode:auto' };
    if (input.classifier) return { kind: 'classify' };
  }
  return { kind: 'ask', reason: request.why, protectedPath };
}
