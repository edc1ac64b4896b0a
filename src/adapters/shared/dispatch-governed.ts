import type { DispatchContext, InvocationPlan, ToolCall, ToolOutcome, ToolRegistry } from '../../core/internal.js';
import { frameworkCardShows } from './framework-card.js';
import { governedContext, isPreApproved } from './governed-context.js';

export interface GovernedCallOptions {
  readonly registry: ToolRegistry;
  /** The application's context for every call of this tool set. */
  readonly context: DispatchContext;
  readonly call: ToolCall;
  /** The framework's abort signal for this call. */
  readonly signal?: AbortSignal | undefined;
  /** The digest the framework's own approval flow approved for exactly this call. */
  readonly approvedActionDigest?: string | undefined;
}

/** Run one framework tool call through the whole toolgate pipeline. */
export function dispatchGoverned(options: GovernedCallOptions): Promise<ToolOutcome> {
  return options.registry.dispatch(options.call, governedContext(options.context, options.signal, options.approvedActionDigest));
}

/** The invocation plan under the adapter's regime. No side effect, no prompt. */
export function planGoverned(options: Omit<GovernedCallOptions, 'approvedActionDigest'>): Promise<InvocationPlan> {
  return options.registry.prepare(options.call, governedContext(options.context, options.signal, undefined));
}

/**
 * Whether the framework must ask a human before this plan may run. A call
 * whose resolved targets the framework's card cannot show is not put to it:
 * the framework's approval could not stand for it, so the dispatch goes to
 * the application's `confirm` (toolgate's card) or is denied.
 */
export function frameworkMustAsk(plan: InvocationPlan, context: DispatchContext): boolean {
  return plan.status === 'approval_required' && !isPreApproved(context, plan.actionDigest) && frameworkCardShows(plan);
}
