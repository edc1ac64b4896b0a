import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { UnknownToolError, unwrapUntrusted, type DispatchContext, type ToolHostCallOptions, type ToolOutcome } from '../core/internal.js';
import { chooseServedConfirm, type ServedApprovals } from './choose-served-confirm.js';
import type { CallExtra } from './elicit-approval.js';
import { listServedTools } from './list-served-tools.js';
import type { LiveRegistry } from './mcp-types.js';
import type { CallToolParams } from './read-call-tool-request.js';

export interface CallServedToolOptions {
  readonly source: LiveRegistry;
  readonly server: Server;
  readonly context: DispatchContext;
  readonly approvals: ServedApprovals;
  readonly callId: string;
}

const HOW_TO_APPROVE = 'To approve calls, serve with an approval controller whose prompt reaches a person (the toolgate console), or trust this client\'s elicitation.';

/**
 * `tools/call` through the whole pipeline. Every failure is an `isError`
 * result carrying the pipeline's secret-free message (already bounded);
 * success carries the bounded content, whose marker names the spill handle
 * when the result was cut, plus `structuredContent` for tools that declare
 * an output schema. The client's cancellation is the dispatch signal.
 */
export async function callServedTool(request: CallToolParams, extra: CallExtra, options: CallServedToolOptions): Promise<CallToolResult> {
  const registry = options.source.current();
  const requested = request.name;
  const served = listServedTools(registry, options.context);
  const key = served.keyByWireName.get(requested);
  if (key === undefined) {
    const withheld = options.source.explainMissing?.(requested);
    if (withheld !== undefined) return errorResult(withheld.message);
  }
  const confirm = chooseServedConfirm(options.approvals, options.server, extra);
  const hostCallOptions = progressOptions(options.context.hostCallOptions, extra);
  const context: DispatchContext = {
    ...options.context,
    signal: extra.signal,
    approval: { ...options.context.approval, ...(confirm === undefined ? {} : { confirm }) },
    ...(hostCallOptions === undefined ? {} : { hostCallOptions }),
  };
  const outcome = await registry.dispatch({ callId: options.callId, name: key ?? requested, arguments: request.arguments }, context);
  if (!outcome.ok && (outcome.error.code === 'UNKNOWN_TOOL' || key === undefined)) {
    // A name the client was not shown fails as unknown, whatever the pipeline refused it for (a deny rule, a missing
    // grant), and the names offered are the listed ones: a hidden tool stays hidden. The journal still has the attempt.
    return errorResult(new UnknownToolError(requested, [...served.keyByWireName.keys()]).message);
  }
  return toCallToolResult(registry.get(outcome.toolName)?.output !== undefined, outcome);
}

function progressOptions(base: ToolHostCallOptions | undefined, extra: CallExtra): ToolHostCallOptions | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return base;
  return {
    ...base,
    onProgress: (progress) => {
      extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...progress } }).catch(() => undefined);
    },
  };
}

function toCallToolResult(hasOutputSchema: boolean, outcome: ToolOutcome): CallToolResult {
  const text = unwrapUntrusted(outcome.content);
  if (!outcome.ok) {
    // An approver that found nobody to ask says how to approve in its own words (the label); otherwise the generic advice.
    const denial = outcome.error as { code: string; reason?: string; label?: string };
    const noApprover = denial.code === 'DENIED_BY_USER' && denial.reason === 'no_approval_hook' && denial.label === undefined;
    return errorResult(noApprover ? `${text} ${HOW_TO_APPROVE}` : text);
  }
  const value = outcome.value;
  const structured = hasOutputSchema && typeof value === 'object' && value !== null && !Array.isArray(value);
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: value as Record<string, unknown> } : {}) };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
