import { resolveActionLexically } from '../../action/resolve-action-lexically.js';
import { buildApprovalPreview } from '../../dispatch/build-approval-preview.js';
import type { PolicyTarget, ToolCallView } from '../../tools/tool-types.js';
import type { ResolvedAction } from '../../action/resolved-action.js';
import type { ApprovalReasons, ApprovalSession, ToolActionClass, ToolApprovalRequest } from '../approval-types.js';
import type { PolicyDecision } from '../policy-types.js';

export interface ApprovalRequestFixture {
  readonly toolName: string;
  readonly action: ToolActionClass | undefined;
  /** The call's target; resolved lexically, as an engine without a resolving host would. */
  readonly target?: PolicyTarget;
  /** The resolved action itself, as a resolving host would give it (flags set); overrides `target`. */
  readonly resolved?: ResolvedAction;
  readonly callId?: string;
  readonly agent?: string;
  /** The session the call came in on. */
  readonly session?: ApprovalSession;
  readonly actionDigest?: string;
  readonly arguments?: unknown;
  readonly decision?: PolicyDecision;
  readonly why?: ToolApprovalRequest['why'];
  readonly view?: ToolCallView;
  /** What `createConfirm` adds (the mode) or the pipeline found (protected path, risk). */
  readonly reasons?: Partial<ApprovalReasons>;
}

/** An approval request as the pipeline builds one, for tests of the approvers that receive it. */
export function approvalRequest(fixture: ApprovalRequestFixture): ToolApprovalRequest {
  const resolved = fixture.resolved ?? (fixture.target === undefined ? undefined : resolveActionLexically(fixture.target, { fsWrite: fixture.action === 'fs_write' }));
  const { preview, target } = buildApprovalPreview(fixture.action, resolved, fixture.arguments ?? {});
  const decision = fixture.decision ?? { kind: 'allow', matched: [] };
  const why = fixture.why ?? 'governed';
  return Object.freeze({
    callId: fixture.callId ?? 'call',
    toolName: fixture.toolName,
    toolVersion: undefined,
    agent: fixture.agent,
    ...(fixture.session === undefined ? {} : { session: fixture.session }),
    action: fixture.action,
    preview,
    target,
    masked: target?.masked ?? 0,
    resolved,
    actionDigest: fixture.actionDigest ?? 'digest',
    arguments: fixture.arguments ?? {},
    decision,
    why,
    reasons: { reason: decision.kind === 'ask' ? (decision.reason ?? 'rule') : why, rules: decision.matched, protectedPath: false, ...fixture.reasons },
    ...(fixture.view === undefined ? {} : { view: fixture.view }),
  });
}
