import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApprovalSession } from '../core/internal.js';
import { clipWhole } from '../core/policy/clip-whole.js';

/** The most characters of a client's declared name or version a card shows: it is the client's own text, any length. */
const MAX_CLIENT_TEXT = 128;

/**
 * The approval session of an MCP session: its id, which keys the session
 * approvals a person gives for its calls, and the `clientInfo` its client
 * declared in `initialize`, cut short. That name is hostile text: whoever
 * shows it writes its controls out, as for any value of a call.
 */
export function servedApprovalSession(server: Server, id: string): ApprovalSession {
  const declared = server.getClientVersion();
  if (declared === undefined) return { id };
  return { id, client: { name: clipWhole(String(declared.name), MAX_CLIENT_TEXT), version: clipWhole(String(declared.version), MAX_CLIENT_TEXT) } };
}
