import { ElicitResultSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { PromptHook, ToolApprovalRequest } from '../core/internal.js';
import { printableApproval } from './printable-approval.js';

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Ask the MCP client's user through elicitation, on the stream of the call
 * being approved. A prompt, not a decision: it is used behind the approval
 * controller's mode logic (`controller.confirmWith`), which asks it only
 * what the mode leaves to a person. Only an explicit accept with
 * `approve: true` approves; decline, cancel, a malformed answer or a failed
 * request reject. The message shows the masked display of what the
 * approval covers and why it asks, never raw arguments.
 */
export function elicitApproval(extra: CallExtra): PromptHook {
  return async (request, _context, signal) => {
    const result = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message: approvalMessage(request),
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
 * The elicitation message: the approval as `describeApproval` writes it
 * (the same text the terminal shows), with what is left of hidden and
 * control characters removed, since a client may print it to a terminal.
 */
export function approvalMessage(request: ToolApprovalRequest): string {
  return ['Approve this tool call?', printableApproval(request)].join('\n');
}
