import { context as otelContext, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { ToolgateEventMap } from '../core/internal.js';
import type { ServedCall } from '../mcp/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { approvalAttributes, EXECUTE_TOOL, policyDecisionAttributes, receiptAttributes, servedCallAttributes, TOOL_CALL } from './trace-attributes.js';

/** One open call: its span, and what the upstream-call span is built from. */
interface OpenCall {
  readonly span: Span;
  /** True when the gateway opened the span and ends it once the client has its answer. */
  readonly served: boolean;
  approval?: Span | undefined;
  /** The pipeline set `error.type` (its error code). */
  failed?: boolean;
  executedAt?: number;
  executedUntil?: number;
}

type ResultEvent = ToolgateEventMap['tool-result'];

/**
 * The spans of the calls in flight, by call id: each event of a call's life
 * opens, annotates or ends its span. A call the gateway serves is opened by
 * `served` and ended when the client has its answer; any other is opened by
 * its first event and ended by its result.
 */
export class CallSpans {
  private readonly open = new Map<string, OpenCall>();

  constructor(
    private readonly tracer: Tracer,
    private readonly recordArguments: boolean,
  ) {}

  requested(event: ToolgateEventMap['tool-call-requested']): void {
    const call = this.open.get(event.callId) ?? this.openInProcess(event);
    if (this.recordArguments) call.span.setAttribute('gen_ai.tool.call.arguments', JSON.stringify(event.toolInput) ?? 'null');
  }

  decided(event: ToolgateEventMap['policy-decided']): void {
    this.open.get(event.callId)?.span.addEvent('toolgate.policy.decided', policyDecisionAttributes(event), event.at);
  }

  approvalRequested(event: ToolgateEventMap['approval-requested']): void {
    const call = this.open.get(event.callId);
    if (call === undefined) return;
    call.approval?.end(event.at);
    call.approval = this.tracer.startSpan(`toolgate.approval ${event.toolName}`, { kind: SpanKind.INTERNAL, startTime: event.at, attributes: approvalAttributes(event) }, childOf(call));
  }

  approvalResolved(event: ToolgateEventMap['approval-resolved']): void {
    const call = this.open.get(event.callId);
    const span = call?.approval;
    if (call === undefined || span === undefined) return;
    call.approval = undefined;
    const { decision } = event;
    span.setAttribute('toolgate.approval.outcome', decision.outcome);
    if ('scope' in decision && decision.scope !== undefined) span.setAttribute('toolgate.approval.scope', decision.scope);
    if ('by' in decision && decision.by !== undefined) span.setAttribute('toolgate.approval.by', decision.by);
    if (decision.outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: 'approval_error' });
    span.end(event.at);
  }

  /** The body started: the start of the upstream call, when the call acts on an MCP server. */
  executing(event: { readonly callId: string; readonly at: number }): void {
    const call = this.open.get(event.callId);
    if (call !== undefined) call.executedAt = event.at;
  }

  /** The body settled, either way: the end of the upstream call. */
  executed(event: { readonly callId: string; readonly at: number }): void {
    const call = this.open.get(event.callId);
    if (call !== undefined) call.executedUntil = event.at;
  }

  result(event: ResultEvent): void {
    const call = this.open.get(event.callId) ?? this.openInProcess({ ...event, at: event.receipt.startedAt });
    call.span.setAttributes(receiptAttributes(event.receipt));
    if (!event.ok) {
      call.failed = true;
      markFailed(call.span, event.code);
    }
    const upstream = event.receipt.target?.mcp;
    if (upstream !== undefined && call.executedAt !== undefined) this.traceUpstream(call, call.executedAt, upstream, event);
    if (!call.served) {
      this.open.delete(event.callId);
      call.span.end(event.at);
    }
  }

  /** A call the gateway serves: a server span around the whole answer, whatever the pipeline did. */
  async served(served: ServedCall, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    const span = this.tracer.startSpan(`${TOOL_CALL} ${served.tool}`, { kind: SpanKind.SERVER, attributes: servedCallAttributes(served) });
    const call: OpenCall = { span, served: true };
    this.open.set(served.callId, call);
    try {
      const result = await run();
      // A call answered before the pipeline ran (a withheld upstream tool) has no code of its own.
      if (result.isError === true && call.failed !== true) markFailed(span, 'tool_error');
      return result;
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.name : '_OTHER');
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      this.open.delete(served.callId);
      call.approval?.end();
      span.end();
    }
  }

  private openInProcess(event: { callId: string; toolName: string; parent: string | undefined; at: number }): OpenCall {
    const span = this.tracer.startSpan(
      `${EXECUTE_TOOL} ${event.toolName}`,
      { kind: SpanKind.INTERNAL, startTime: event.at, attributes: { 'gen_ai.operation.name': EXECUTE_TOOL, 'gen_ai.tool.name': event.toolName, 'gen_ai.tool.call.id': event.callId } },
      this.parentContext(event.parent),
    );
    const call: OpenCall = { span, served: false };
    this.open.set(event.callId, call);
    return call;
  }

  private parentContext(parent: string | undefined): Context {
    const enclosing = parent === undefined ? undefined : this.open.get(parent);
    return enclosing === undefined ? otelContext.active() : childOf(enclosing);
  }

  // The upstream call is the execution bracket of a call that acted on an MCP server; it is written once the receipt
  // names the server and tool, with the bracket's own times.
  private traceUpstream(call: OpenCall, startTime: number, upstream: { server: string; tool?: string }, event: ResultEvent): void {
    const tool = upstream.tool ?? event.receipt.tool;
    const span = this.tracer.startSpan(
      `${TOOL_CALL} ${tool}`,
      {
        kind: SpanKind.CLIENT,
        startTime,
        attributes: { 'mcp.method.name': TOOL_CALL, 'gen_ai.operation.name': EXECUTE_TOOL, 'gen_ai.tool.name': tool, 'toolgate.upstream.server': upstream.server },
      },
      childOf(call),
    );
    if (!event.ok && call.executedUntil !== undefined) markFailed(span, event.code);
    span.end(call.executedUntil ?? event.at);
  }
}

function childOf(call: OpenCall): Context {
  return trace.setSpan(otelContext.active(), call.span);
}

function markFailed(span: Span, code: string): void {
  span.setAttribute('error.type', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
