import type { ModelMessage } from 'ai';

/** A human's answer to one AI SDK tool approval request, resolved to its tool call. */
export interface ApprovalAnswer {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly approved: boolean;
  readonly reason: string | undefined;
}

/**
 * The approval answers the AI SDK will act on in this request: the
 * `tool-approval-response` parts of the last (tool) message, each joined to
 * its `tool-approval-request` and tool call, exactly as `generateText` and
 * `streamText` collect them. Automatic approvals (the application's own
 * `toolApproval` configuration) are not a human answer and are left out.
 */
export function findApprovalResponses(messages: readonly ModelMessage[]): readonly ApprovalAnswer[] {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return [];
  const requests = new Map<string, { toolCallId: string; isAutomatic: boolean }>();
  const calls = new Map<string, { toolName: string; input: unknown }>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-approval-request') requests.set(part.approvalId, { toolCallId: part.toolCallId, isAutomatic: isAutomatic(part) });
      else if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
    }
  }
  const answers: ApprovalAnswer[] = [];
  for (const part of last.content) {
    if (part.type !== 'tool-approval-response') continue;
    const request = requests.get(part.approvalId);
    const call = request === undefined ? undefined : calls.get(request.toolCallId);
    if (request === undefined || request.isAutomatic || call === undefined) continue;
    answers.push({ toolCallId: request.toolCallId, toolName: call.toolName, input: call.input, approved: part.approved, reason: part.reason });
  }
  return answers;
}

/** AI SDK 7 marks the approvals its own `toolApproval` configuration gave; AI SDK 6 gives none, so its parts carry no mark. */
function isAutomatic(part: object): boolean {
  return 'isAutomatic' in part && part.isAutomatic === true;
}
