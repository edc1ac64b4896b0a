import { ElicitResultSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { isCutViewBody, type PromptHook, type ToolApprovalDecision, type ToolApprovalRequest } from '../core/internal.js';
import { printableApproval } from './printable-approval.js';

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The longest approval an MCP client is asked to show, in characters:
 * about a 7,000-character write (its text shows twice, as content and in
 * the arguments). A longer one goes to the controller's own prompt (the
 * console), which shows it whole; an approval is never asked where it is
 * shown cut, since what a person does not see runs all the same.
 */
export const MAX_ELICITED_CHARS = 16 * 1024;

const TOO_LONG = `the approval is too long to show in the MCP client (over ${MAX_ELICITED_CHARS.toLocaleString('en-US')} characters, or values cut short), and there is no console to show it: run toolgate serve with the console on`;

/**
 * Ask the MCP client's user through elicitation, on the stream of the call
 * being approved. A prompt, not a decision: it is used behind the approval
 * controller's mode logic (`controller.confirmWith`), which asks it only
 * what the mode leaves to a person. Only an explicit accept with
 * `approve: true` approves; decline, cancel, a malformed answer or a failed
 * request reject. The message shows the masked display of what the
 * approval covers and why it asks, never raw arguments, and all of it: an
 * approval longer than `MAX_ELICITED_CHARS`, or one whose display is cut
 * short (`showsCut`), is asked of `whole` instead (the controller's own
 * prompt: the console), or, without one, rejected.
 */
export function elicitApproval(extra: CallExtra, whole: PromptHook | undefined): PromptHook {
  return async (request, context, signal) => {
    const message = approvalMessage(request);
    if (message.length > MAX_ELICITED_CHARS || showsCut(request)) {
      const decision: ToolApprovalDecision = typeof whole === 'function' ? await whole(request, context, signal) : { outcome: 'reject', noApprover: true };
      // Nobody else to ask: say why the client, which was trusted, was not asked either.
      return decision.outcome === 'reject' && decision.noApprover === true ? { ...decision, reason: TOO_LONG } : decision;
    }
    const result = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message,
          requestedSchema: {
            type: 'object',
            properties: {
              approve: { type: 'boolean', title: 'Approve this call', description: 'Run the tool once with these arguments.' },
            },
            required: ['approve'],
          },
        },
      },
      ElicitResultSchema,
      signal === undefined ? {} : { signal },
    );
    if (result.action === 'accept' && result.content?.approve === true) return { outcome: 'approve', scope: 'once', by: 'mcp-client' };
    return { outcome: 'reject', reason: result.action === 'accept' ? 'not approved in the MCP client' : `${result.action} in the MCP client`, by: 'mcp-client' };
  };
}

/**
 * Whether what the approval shows of the call is cut short where nothing
 * else shows it: MCP arguments past the card's bounds (a string of 16,384
 * characters, 256 entries, 16 levels), or a tool's view past its length.
 * The console card says so and shows what it has; a client is not asked
 * with part of the call out of sight (a 300-step list whose last step ran
 * a script was approved by a user shown the first 256).
 */
function showsCut(request: ToolApprovalRequest): boolean {
  const body = request.view?.body;
  return (request.target?.mcp?.cut ?? 0) > 0 || (body !== undefined && isCutViewBody(body));
}

/**
 * The elicitation message: the approval as `describeApproval` writes it
 * (the same text the terminal shows), with what is left of hidden and
 * control characters removed, since a client may print it to a terminal.
 */
export function approvalMessage(request: ToolApprovalRequest): string {
  return ['Approve this tool call?', printableApproval(request)].join('\n');
}
