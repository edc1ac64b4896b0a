import type { ToolOutcome } from '../../core/internal.js';
import { ToolgateError } from '../../core/internal.js';
import { governedContext } from './governed-context.js';
import type { GovernedCallOptions } from './dispatch-governed.js';

export interface RecordRejectionOptions extends Omit<GovernedCallOptions, 'approvedActionDigest'> {
  /** The human's reason, shown to the model as a display-safe label. */
  readonly reason?: string | undefined;
}

/**
 * A human rejected a call in the framework's own approval flow, so the
 * framework never hands it to toolgate. Record it anyway: the call runs
 * through the pipeline with an approver that rejects, which yields the
 * `DENIED_BY_USER` outcome, its receipt and its events. Nothing can execute:
 * only a call that still needs approval is recorded, the approver rejects,
 * and the last admission before the host refuses regardless.
 * Returns undefined when the call no longer needs approval (nothing to deny).
 */
export async function recordRejection(options: RecordRejectionOptions): Promise<ToolOutcome | undefined> {
  const { registry, call, reason } = options;
  const base = governedContext(options.context, options.signal, undefined);
  const plan = await registry.prepare(call, base);
  if (plan.status !== 'approval_required') return undefined;
  return registry.dispatch(call, {
    ...base,
    approval: { confirm: () => Promise.resolve({ outcome: 'reject', ...(reason === undefined ? {} : { reason }), by: 'framework' }) },
    beforeDispatch: () => {
      throw new ToolgateError('DENIED_BY_USER', 'A rejected call cannot be dispatched.');
    },
  });
}
