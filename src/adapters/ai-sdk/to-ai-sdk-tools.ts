import type { ModelMessage, Tool, ToolSet } from 'ai';
import type { DispatchContext, ToolOutcome, ToolRegistry } from '../../core/internal.js';
import { placeToolResult } from '../../core/internal.js';
import { createApprovalLedger } from '../shared/approval-ledger.js';
import { approvedDigest } from '../shared/approved-digest.js';
import { dispatchGoverned, frameworkMustAsk, planGoverned } from '../shared/dispatch-governed.js';
import { dispatchCallId, isAnonymous } from '../shared/framework-call-id.js';
import { frameworkTools } from '../shared/framework-tools.js';
import { ToolOutcomeError } from '../shared/outcome-error.js';
import { recordRejection } from '../shared/record-rejection.js';
import { ai } from './ai-peer.js';
import { findApprovalResponses } from './find-approval-responses.js';

/**
 * The registry scope's tools as an AI SDK `ToolSet`. Every `execute`
 * dispatches through the toolgate pipeline with the AI SDK's abort signal.
 * A call toolgate would ask about makes `needsApproval` true, so the AI
 * SDK's own approval flow (tool-approval-request parts, `useChat`'s
 * `addToolApprovalResponse`) asks the human; the approved call then runs
 * with exactly its action digest pre-approved. A denial or any other
 * toolgate failure is thrown as a `ToolOutcomeError`, which the AI SDK turns
 * into a tool-error result the model sees.
 */
export function toAISDKTools(registry: ToolRegistry, context: DispatchContext = {}): ToolSet {
  const ledger = createApprovalLedger();
  // No prototype: the AI SDK looks the model's tool name up in this object, and `constructor` or `toString` found on an
  // ordinary object's prototype would be taken for a tool with no `execute` (the application's own), not an unknown one.
  const tools = Object.create(null) as Record<string, Tool<unknown, string>>;
  for (const entry of frameworkTools(registry)) {
    const call = (toolCallId: string, input: unknown) => ({ callId: dispatchCallId(toolCallId, 'ai-sdk'), name: entry.key, arguments: input });
    tools[entry.wireName] = ai.tool<unknown, string>({
      description: entry.description,
      // Validation is toolgate's (stage 6): a schema failure must become a receipted ARGS_INVALID result, not an SDK exception.
      inputSchema: ai.jsonSchema<unknown>(entry.inputSchema),
      needsApproval: async (input, { toolCallId, messages }) => {
        const plan = await planGoverned({ registry, context, call: call(toolCallId, input) });
        if (!frameworkMustAsk(plan, context) || plan.actionDigest === undefined || isAnonymous(toolCallId)) return false;
        // The AI SDK evaluates an approved call again before it runs it: that raises no card. Any other evaluation does.
        if (!approvedByHuman(toolCallId, messages)) ledger.raise(toolCallId, plan.actionDigest, entry.wireName);
        return true;
      },
      execute: async (input, { toolCallId, abortSignal, messages }) => {
        const governed = call(toolCallId, input);
        const approved = !isAnonymous(toolCallId) && approvedByHuman(toolCallId, messages) ? 'call' : 'none';
        const outcome = await dispatchGoverned({
          registry,
          context,
          call: governed,
          signal: abortSignal,
          approvedActionDigest: await approvedDigest({ registry, context, call: governed, ledger, approved }),
        });
        return modelContent(outcome);
      },
    });
  }
  return tools;
}

/**
 * Record the calls a human rejected in the AI SDK's approval flow. The AI
 * SDK answers those itself (an `execution-denied` result the model sees) and
 * never calls `execute`, so without this toolgate would hold no receipt for
 * them. Call it with the request's messages before resuming `generateText`
 * or `streamText`; it executes nothing.
 */
export async function recordAISDKRejections(registry: ToolRegistry, messages: readonly ModelMessage[], context: DispatchContext = {}): Promise<readonly ToolOutcome[]> {
  const keys = new Map(frameworkTools(registry).map((entry) => [entry.wireName, entry.key]));
  const outcomes: ToolOutcome[] = [];
  for (const answer of findApprovalResponses(messages)) {
    if (answer.approved) continue;
    const outcome = await recordRejection({
      registry,
      context,
      call: { callId: answer.toolCallId, name: keys.get(answer.toolName) ?? answer.toolName, arguments: answer.input },
      reason: answer.reason,
    });
    if (outcome !== undefined) outcomes.push(outcome);
  }
  return outcomes;
}

/**
 * Whether a human approved this call in the AI SDK's flow. With a client
 * supplying the messages (`useChat`), set `experimental_toolApprovalSecret`
 * so the AI SDK signs each request and a client cannot forge the approval
 * or swap the approved input.
 */
function approvedByHuman(toolCallId: string, messages: readonly ModelMessage[]): boolean {
  return findApprovalResponses(messages).some((answer) => answer.toolCallId === toolCallId && answer.approved);
}

function modelContent(outcome: ToolOutcome): string {
  if (!outcome.ok) throw new ToolOutcomeError(outcome);
  return placeToolResult(outcome.callId, outcome.content).content;
}
