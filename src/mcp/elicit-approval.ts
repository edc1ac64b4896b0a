import { ElicitResultSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { PromptContext, PromptHook, ToolApprovalRequest } from '../core/index.js';

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const MAX_SHOWN = 600;

/**
 * Ask the MCP client's user through elicitation, on the stream of the call
 * being approved. A prompt, not a decision: it is used behind the approval
 * controller's mode logic (`controller.confirmWith`), which asks it only
 * what the mode leaves to a person. Only an explicit accept with
 * `approve: true` approves; decline, cancel, a malformed answer or a failed
 * request reject. The message holds the secret-free preview and the
 * redacted argument projection, never raw arguments.
 */
export function elicitApproval(extra: CallExtra): PromptHook {
  return async (request, context, signal) => {
    const result = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message: approvalMessage(request, context),
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

export function approvalMessage(request: ToolApprovalRequest, context: PromptContext): string {
  const preview = request.preview;
  const lines = [`Approve the call to tool "${request.toolName}"?`];
  if (context.protectedPath) lines.push('It touches a protected path, which is never approved automatically.');
  if (request.action !== undefined) lines.push(`Action: ${request.action}`);
  if (preview.command !== undefined) lines.push(`Command: ${preview.command}`);
  if (preview.path !== undefined) lines.push(`Path: ${preview.path}`);
  if (preview.host !== undefined) lines.push(`Host: ${preview.host}`);
  let shown: string;
  try {
    shown = JSON.stringify(request.arguments) ?? '';
  } catch {
    shown = '[arguments]';
  }
  lines.push(`Arguments: ${shown.length > MAX_SHOWN ? `${shown.slice(0, MAX_SHOWN)}…` : shown}`);
  lines.push(`Why: ${request.why === 'rule' ? 'a policy rule asks' : request.why === 'governed' ? 'a governed action' : `asked by a ${request.why}`}`);
  return lines.join('\n');
}
