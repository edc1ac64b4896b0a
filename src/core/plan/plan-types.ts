import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import type { ToolActionClass } from '../policy/approval-types.js';
import type { PolicyDecision } from '../policy/policy-types.js';

/** What a call would do, decided before anything happens. */
export interface InvocationPlan {
  readonly status: 'ready' | 'approval_required' | 'denied';
  readonly callId: string;
  readonly toolName: string | undefined;
  readonly toolVersion: string | undefined;
  /** Present once the arguments were assembled and validated. */
  readonly inputDigest: string | undefined;
  readonly actionDigest: string | undefined;
  readonly action: ToolActionClass | undefined;
  /**
   * What the call would do once its arguments are resolved (real paths and
   * their flags, the exact argv, the URL): what toolgate's approval card
   * shows. A framework's own card shows only the arguments.
   */
  readonly resolved: ResolvedAction | undefined;
  /** Why approval is required, or why the call is denied. */
  readonly reason: string | undefined;
  readonly error: ToolgateError | undefined;
  readonly decision: PolicyDecision | undefined;
  readonly policyVersion: number | undefined;
}
