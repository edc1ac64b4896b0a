import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { renderedValueJson, UnknownToolError, unwrapUntrusted, type ApprovalSession, type ConfirmActionHook, type DispatchContext, type ToolApprovalContext, type ToolHostCallOptions, type ToolOutcome } from '../core/internal.js';
import { boundStructuredContent, keepStructuredJson, structuredJsonOf } from './bound-structured-content.js';
import { chooseServedConfirm, type ServedApprovals } from './choose-served-confirm.js';
import type { CallExtra } from './elicit-approval.js';
import { listServedTools } from './list-served-tools.js';
import type { LiveRegistry } from './mcp-types.js';
import { mediaContentBlocks } from './media-content-blocks.js';
import type { CallToolParams } from './read-call-tool-request.js';
import { throttleProgress, type ProgressThrottle } from './throttle-progress.js';

export interface CallServedToolOptions {
  readonly source: LiveRegistry;
  readonly server: Server;
  readonly context: ServedContext;
  readonly approvals: ServedApprovals;
  readonly callId: string;
  /** The MCP session the call came in on: what a session approval given for it is remembered for. */
  readonly session: ApprovalSession;
  /** The most bytes of media one result sends (`mediaContentBlocks`). */
  readonly maxMediaBytes: number;
  /**
   * The transport writes a result's structured value as the text kept with
   * the result (`structuredJsonOf`: stdio's line writer). Only there is the
   * call's rendered text what is measured: elsewhere the transport writes
   * the object as it is then, so the object is measured.
   */
  readonly writesKeptJson: boolean;
}

const HOW_TO_APPROVE = 'To approve calls, serve with an approval controller whose prompt reaches a person (the toolgate console), or trust this client\'s elicitation.';

/**
 * `tools/call` through the whole pipeline. Every failure is an `isError`
 * result carrying the pipeline's secret-free message (already bounded);
 * success carries the bounded content, whose marker names the spill handle
 * when the result was cut, plus `structuredContent` for tools that declare
 * an output schema (its longest strings cut past `limits.maxOutputBytes`),
 * then the media the call returned as image, audio or resource blocks (only
 * the outcome's own attachments, read back from the host's media store). The
 * client's cancellation is the dispatch signal.
 */
export async function callServedTool(request: CallToolParams, extra: CallExtra, options: CallServedToolOptions): Promise<CallToolResult> {
  const registry = options.source.current();
  const requested = request.name;
  const served = listServedTools(registry, options.context.base);
  const key = served.keyByWireName.get(requested);
  if (key === undefined) {
    const withheld = options.source.explainMissing?.(requested);
    if (withheld !== undefined) return errorResult(withheld.message);
  }
  const token = extra._meta?.progressToken;
  const progress = token === undefined ? undefined : throttleProgress((update) => sendProgress(extra, token, update));
  const context = servedContext(options.context, extra, { confirm: chooseServedConfirm(options.approvals, options.server, extra), session: options.session }, progress);
  let outcome: ToolOutcome;
  try {
    outcome = await registry.dispatch({ callId: options.callId, name: key ?? requested, arguments: request.arguments }, context);
  } finally {
    progress?.stop();
  }
  if (!outcome.ok && (outcome.error.code === 'UNKNOWN_TOOL' || key === undefined)) {
    // A name the client was not shown fails as unknown, whatever the pipeline refused it for (a deny rule, a missing
    // grant), and the names offered are the listed ones: a hidden tool stays hidden. The journal still has the attempt.
    return errorResult(new UnknownToolError(requested, [...served.keyByWireName.keys()]).message);
  }
  const result = toCallToolResult(registry.get(outcome.toolName)?.output !== undefined, outcome, registry.limits.maxOutputBytes, options.writesKeptJson ? renderedValueJson(outcome) : undefined);
  if (result.isError === true || !outcome.ok || outcome.attachments === undefined || outcome.attachments.length === 0) return result;
  const attachments = outcome.attachments.map((attachment) => unwrapUntrusted(attachment));
  const media = await mediaContentBlocks({ attachments, mediaStore: registry.host.mediaStore, maxBytes: options.maxMediaBytes });
  const withMedia = { ...result, content: [...result.content, ...media] };
  // The structured value is the one measured: its text goes with it.
  const measured = structuredJsonOf(result);
  if (measured !== undefined) keepStructuredJson(withMedia, measured);
  return withMedia;
}

/** The session's context split once: what every call copies, and the members a call may set for itself. */
export interface ServedContext {
  readonly base: DispatchContext;
  readonly shared: Omit<DispatchContext, 'signal' | 'approval' | 'hostCallOptions'>;
  readonly approval: Omit<ToolApprovalContext, 'confirm' | 'session'>;
  readonly hostCallOptions: Omit<ToolHostCallOptions, 'onProgress'>;
}

/** Split once per session, so that no call copies a member only to replace it. */
export function prepareServedContext(base: DispatchContext): ServedContext {
  const { signal: _signal, approval, hostCallOptions, ...shared } = base;
  // The session is the served one, never one the gateway's own context names.
  const { confirm: _confirm, session: _session, ...approvalShared } = approval ?? {};
  const { onProgress: _onProgress, ...hostShared } = hostCallOptions ?? {};
  return { base, shared, approval: approvalShared, hostCallOptions: hostShared };
}

/**
 * The call's context: the session's with the call's own signal, confirm
 * hook, approval session and progress sink. Each object starts with the call's members and
 * copies the session's after them, which hold none of those: V8 gives an
 * object spread from another a shape outside its usual tree, and a member
 * written into one after the spread takes a slow path on every call.
 */
function servedContext(
  session: ServedContext,
  extra: CallExtra,
  asking: { readonly confirm: ConfirmActionHook | undefined; readonly session: ApprovalSession },
  progress: ProgressThrottle | undefined,
): DispatchContext {
  const { base } = session;
  const approval: ToolApprovalContext =
    asking.confirm === undefined ? { session: asking.session, ...session.approval } : { confirm: asking.confirm, session: asking.session, ...session.approval };
  if (progress === undefined) {
    return base.hostCallOptions === undefined
      ? { signal: extra.signal, approval, ...session.shared }
      : { signal: extra.signal, approval, hostCallOptions: base.hostCallOptions, ...session.shared };
  }
  return { signal: extra.signal, approval, hostCallOptions: { onProgress: progress.report, ...session.hostCallOptions }, ...session.shared };
}

function sendProgress(extra: CallExtra, token: string | number, update: Parameters<NonNullable<ToolHostCallOptions['onProgress']>>[0]): void {
  extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...update } }).catch(() => undefined);
}

/** The result of an outcome; `valueJson` is its value's text as the call rendered it, where that is what the transport writes. */
function toCallToolResult(hasOutputSchema: boolean, outcome: ToolOutcome, maxOutputBytes: number, valueJson: string | undefined): CallToolResult {
  const text = unwrapUntrusted(outcome.content);
  if (!outcome.ok) {
    // An approver that found nobody to ask says how to approve in its own words (the label); otherwise the generic advice.
    const denial = outcome.error as { code: string; reason?: string; label?: string };
    const noApprover = denial.code === 'DENIED_BY_USER' && denial.reason === 'no_approval_hook' && denial.label === undefined;
    return errorResult(noApprover ? `${text} ${HOW_TO_APPROVE}` : text);
  }
  const value = outcome.value;
  if (!hasOutputSchema || typeof value !== 'object' || value === null || Array.isArray(value)) return { content: [{ type: 'text', text }] };
  const bounded = boundStructuredContent(value as Record<string, unknown>, maxOutputBytes, valueJson);
  // Past the limit even with its strings cut: a client that reads the structured value would get it whole or nothing.
  if (bounded === undefined) return errorResult(`${text}\n[the structured result exceeds ${maxOutputBytes} bytes of JSON and was not sent; the text above is the result as bounded]`);
  const result = { content: [{ type: 'text' as const, text }], structuredContent: bounded.value };
  if (bounded.json !== undefined) keepStructuredJson(result, bounded.json);
  return result;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
