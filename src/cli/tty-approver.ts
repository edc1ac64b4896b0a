import { isCancel, note, select, text } from '@clack/prompts';
import type { ConfirmActionHook, ToolApprovalDecision } from '../core/internal.js';
import { printableApproval } from '../mcp/printable-approval.js';

/**
 * The terminal approver for `toolgate call`: shows what the approval covers
 * and why it asks (the text the MCP elicitation shows too, hidden and control
 * characters removed: the terminal would obey them) and asks once / session
 * / always / reject. Ctrl-C rejects.
 */
export function createTtyApprover(streams: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream } = {}): ConfirmActionHook {
  return async (request, signal): Promise<ToolApprovalDecision> => {
    note(printableApproval(request), 'Approval needed', {
      ...(streams.output === undefined ? {} : { output: streams.output as NodeJS.WriteStream }),
    });
    const choice = await select({
      message: `Allow ${request.toolName}?`,
      options: [
        { value: 'once', label: 'Approve once' },
        { value: 'session', label: 'Approve for this session' },
        { value: 'always', label: 'Always allow (writes a rule)' },
        { value: 'reject', label: 'Reject' },
      ],
      ...(streams.input === undefined ? {} : { input: streams.input as NodeJS.ReadStream }),
      ...(streams.output === undefined ? {} : { output: streams.output as NodeJS.WriteStream }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (isCancel(choice) || choice === 'reject') {
      if (isCancel(choice)) return { outcome: 'reject', reason: 'cancelled at the prompt', by: 'tty' };
      const reason = await text({
        message: 'Reason (optional)',
        ...(streams.input === undefined ? {} : { input: streams.input as NodeJS.ReadStream }),
        ...(streams.output === undefined ? {} : { output: streams.output as NodeJS.WriteStream }),
      });
      return { outcome: 'reject', by: 'tty', ...(isCancel(reason) || reason.length === 0 ? {} : { reason }) };
    }
    return { outcome: 'approve', scope: choice, by: 'tty' };
  };
}
