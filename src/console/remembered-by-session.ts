import type { RememberedApproval } from '../core/internal.js';
import type { RememberedSession } from './console-types.js';
import { shownSession } from './shown-session.js';

/**
 * The remembered approvals grouped by the session that got them, in the order
 * they were first given: a person sees which client each stands in for.
 */
export function rememberedBySession(remembered: readonly RememberedApproval[]): RememberedSession[] {
  const groups = new Map<string | undefined, { session: RememberedApproval['session']; approvals: Omit<RememberedApproval, 'session'>[] }>();
  for (const { session, ...approval } of remembered) {
    let group = groups.get(session?.id);
    if (group === undefined) groups.set(session?.id, (group = { session, approvals: [] }));
    group.approvals.push(approval);
  }
  return [...groups.values()].map(({ session, approvals }) => ({ ...(session === undefined ? {} : { session: shownSession(session) }), approvals }));
}
