import { shortSessionId, type ApprovalSession } from '../core/internal.js';
import type { ShownSession } from './console-types.js';

/** A session as the console shows it: the first characters of its id, and what its client declared. */
export function shownSession(session: ApprovalSession): ShownSession {
  return Object.freeze({ id: shortSessionId(session.id), ...(session.client === undefined ? {} : { client: session.client }) });
}
