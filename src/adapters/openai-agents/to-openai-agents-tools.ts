import type { FunctionTool, RunContext, RunState, RunToolApprovalItem } from '@openai/agents';
import type { DispatchContext, InvocationPlan, ToolCall, ToolOutcome, ToolRegistry } from '../../core/internal.js';
import { ConfigurationError, placeToolResult, unwrapUntrusted } from '../../core/internal.js';
import { createApprovalLedger } from '../shared/approval-ledger.js';
import { approvedDigest, type FrameworkApproval } from '../shared/approved-digest.js';
import { dispatchGoverned, frameworkMustAsk, planGoverned } from '../shared/dispatch-governed.js';
import { dispatchCallId, isAnonymous } from '../shared/framework-call-id.js';
import { frameworkTools } from '../shared/framework-tools.js';
import { ToolOutcomeError } from '../shared/outcome-error.js';
import { recordRejection } from '../shared/record-rejection.js';
import { agents } from './agents-peer.js';

/**
 * The registry scope's tools as OpenAI Agents SDK function tools. A call
 * toolgate would ask about makes `needsApproval` true, so the run stops with
 * an interruption (`result.interruptions`); the application approves with
 * `result.state.approve(item)` (or rejects with `rejectInterruption`) and
 * resumes with `run(agent, result.state)`. The resumed call dispatches with
 * exactly the action digest the interruption was raised for pre-approved.
 * A denial or other toolgate failure reaches the model as the tool output.
 */
export function toOpenAIAgentsTools(registry: ToolRegistry, context: DispatchContext = {}): FunctionTool<unknown, NonStrictParameters, unknown>[] {
  const ledger = createApprovalLedger();
  return frameworkTools(registry).map((entry) => {
    const call = (callId: string, input: unknown): ToolCall => ({ callId: dispatchCallId(callId, 'openai-agents'), name: entry.key, arguments: input });
    return agents.tool({
      name: entry.wireName,
      description: entry.description,
      // Non-strict: validation is toolgate's (stage 6), so a bad argument becomes a receipted ARGS_INVALID result.
      // The model sees the registry's own schema, unchanged.
      parameters: { ...entry.inputSchema, type: 'object' } as unknown as NonStrictParameters,
      strict: false,
      needsApproval: async (runContext, input, callId) => {
        if (callId === undefined) return true;
        const plan = await planGoverned({ registry, context, call: call(callId, input) });
        if (!frameworkMustAsk(plan, context) || plan.actionDigest === undefined || isAnonymous(callId)) return false;
        // The SDK asks only for a call it holds no decision on: each evaluation here raises a card.
        ledger.raise(callId, plan.actionDigest, entry.wireName, (other) => runContext.isToolApproved({ toolName: entry.wireName, callId: other }) === false);
        return true;
      },
      execute: async (input, runContext, details) => {
        const callId = details?.toolCall?.callId;
        if (callId === undefined) throw new ConfigurationError('toolCall.callId', 'is missing: an OpenAI Agents tool call arrived without one');
        const approved = isAnonymous(callId) ? 'none' : sdkApproval(runContext, entry.wireName, callId);
        const governed = call(callId, input);
        const outcome = await dispatchGoverned({
          registry,
          context,
          call: governed,
          signal: details?.signal,
          approvedActionDigest: await approvedDigest({ registry, context, call: governed, ledger, approved }),
        });
        if (!outcome.ok) throw new ToolOutcomeError(outcome);
        return placeToolResult(callId, outcome.content).content;
      },
      // The model sees toolgate's own (bounded, secret-free) failure text, not the SDK's generic message.
      errorFunction: (_runContext, error) => (error instanceof ToolOutcomeError ? error.message : 'The tool failed.'),
    });
  });
}

/** The SDK's non-strict JSON Schema parameter shape (not exported by the SDK). */
export interface NonStrictParameters {
  type: 'object';
  properties: Record<string, never>;
  required: never[];
  additionalProperties: true;
}

/**
 * What the SDK's approvals say about this call. `state.approve(item, { alwaysApprove: true })`
 * approves every call of the tool, whatever its call id: a call id the SDK
 * never issued shows whether the approval is standing or for this call alone.
 */
function sdkApproval(runContext: RunContext<unknown> | undefined, toolName: string, callId: string): FrameworkApproval {
  if (runContext?.isToolApproved({ toolName, callId }) !== true) return 'none';
  return runContext.isToolApproved({ toolName, callId: `toolgate-probe-${crypto.randomUUID()}` }) === true ? 'standing' : 'call';
}

/** The toolgate plan behind one interruption: status, reason and the action digest an approval binds to. */
export function planInterruption(registry: ToolRegistry, item: RunToolApprovalItem, context: DispatchContext = {}): Promise<InvocationPlan> {
  return planGoverned({ registry, context, call: interruptedCall(registry, item) });
}

/**
 * Reject one interruption and record it: toolgate writes the
 * `DENIED_BY_USER` receipt, and the model is told exactly toolgate's denial
 * text when the run resumes. Nothing executes.
 */
export async function rejectInterruption(
  registry: ToolRegistry,
  state: Pick<RunState<unknown, never>, 'reject'>,
  item: RunToolApprovalItem,
  options: { readonly context?: DispatchContext; readonly reason?: string } = {},
): Promise<ToolOutcome | undefined> {
  const outcome = await recordRejection({ registry, context: options.context ?? {}, call: interruptedCall(registry, item), reason: options.reason });
  state.reject(item, outcome === undefined ? {} : { message: unwrapUntrusted(outcome.content) });
  return outcome;
}

function interruptedCall(registry: ToolRegistry, item: RunToolApprovalItem): ToolCall {
  const raw = item.rawItem;
  const callId = 'callId' in raw && typeof raw.callId === 'string' ? raw.callId : undefined;
  const wireName = item.name;
  if (callId === undefined || wireName === undefined) throw new ConfigurationError('interruption', 'is not a function tool call');
  const key = frameworkTools(registry).find((entry) => entry.wireName === wireName)?.key ?? wireName;
  // The raw JSON string: toolgate parses, bounds and validates it like any model argument.
  return { callId, name: key, arguments: item.arguments ?? '{}' };
}
