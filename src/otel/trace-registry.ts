import { context as otelContext, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { ToolgateEventMap, ToolRegistry } from '../core/internal.js';
import type { ObserveServedCall, ServedCall } from '../mcp/index.js';

export interface TraceRegistryOptions {
  /** Default: `trace.getTracer('toolgate')` — a no-op until an OpenTelemetry SDK is registered. */
  readonly tracer?: Tracer;
  /**
   * Record `gen_ai.tool.call.arguments`: the pipeline's argument projection,
   * in which secrets are already redacted (before any clipping). Default
   * false: no argument value reaches a span at all.
   */
  readonly recordArguments?: boolean;
}

export interface RegistryTracing {
  /** Give this to `serveMcp({ observeCall })`: a gateway call's span becomes `tools/call {tool}` with its MCP session. */
  readonly observeServedCall: ObserveServedCall;
  /** Detach the listeners. Spans still open stay open; they end with their calls, unseen. */
  detach(): void;
}

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

const TOOL_CALL = 'tools/call';
const EXECUTE_TOOL = 'execute_tool';

/**
 * Trace what a registry does through `@opentelemetry/api`, one span per
 * tool call, with the OpenTelemetry GenAI and MCP attribute names: a call
 * the gateway serves is `tools/call {tool}` (a server span, with
 * `mcp.method.name` and `mcp.session.id`), any other `execute_tool {tool}`.
 * The approval wait and the upstream `tools/call` are child spans; every
 * policy decision is a span event. Everything is wired through
 * `registry.on(…)` and the gateway's `observeCall`: attributes are names,
 * ids, codes, reasons and rule ids, and the arguments only as the
 * pipeline's redacted projection (opt-in) — never the raw arguments, which
 * no event carries.
 */
export function traceRegistry(registry: Pick<ToolRegistry, 'on'>, options: TraceRegistryOptions = {}): RegistryTracing {
  const tracer = options.tracer ?? trace.getTracer('toolgate');
  const open = new Map<string, OpenCall>();

  const parentContext = (parent: string | undefined): ReturnType<typeof otelContext.active> => {
    const enclosing = parent === undefined ? undefined : open.get(parent);
    return enclosing === undefined ? otelContext.active() : trace.setSpan(otelContext.active(), enclosing.span);
  };

  const openInProcess = (event: { callId: string; toolName: string; parent: string | undefined; at: number }): OpenCall => {
    const span = tracer.startSpan(
      `${EXECUTE_TOOL} ${event.toolName}`,
      { kind: SpanKind.INTERNAL, startTime: event.at, attributes: { 'gen_ai.operation.name': EXECUTE_TOOL, 'gen_ai.tool.name': event.toolName, 'gen_ai.tool.call.id': event.callId } },
      parentContext(event.parent),
    );
    const call: OpenCall = { span, served: false };
    open.set(event.callId, call);
    return call;
  };

  const childOf = (call: OpenCall): ReturnType<typeof otelContext.active> => trace.setSpan(otelContext.active(), call.span);

  const onResult = (event: ToolgateEventMap['tool-result']): void => {
    const call = open.get(event.callId) ?? openInProcess({ ...event, at: event.receipt.startedAt });
    const { receipt } = event;
    const upstream = receipt.target?.mcp;
    const attributes: Attributes = {
      'gen_ai.tool.type': upstream === undefined ? 'function' : 'extension',
      'toolgate.tool': receipt.tool,
      'toolgate.invocation.id': receipt.invocationId,
      'toolgate.status': receipt.status,
      'toolgate.code': receipt.code,
      'toolgate.policy.decision': receipt.policy.decision,
      'toolgate.approval.outcome': receipt.approval.outcome,
      'toolgate.effect': receipt.effect,
      'toolgate.risk': receipt.risk,
    };
    if (receipt.policy.version !== undefined) attributes['toolgate.policy.version'] = receipt.policy.version;
    if (receipt.agent !== undefined) attributes['gen_ai.agent.name'] = receipt.agent;
    if (receipt.approval.how !== undefined) attributes['toolgate.approval.how'] = receipt.approval.how;
    if (receipt.approval.scope !== undefined) attributes['toolgate.approval.scope'] = receipt.approval.scope;
    if (upstream !== undefined) attributes['toolgate.upstream.server'] = upstream.server;
    call.span.setAttributes(attributes);
    if (!event.ok) {
      call.failed = true;
      call.span.setAttribute('error.type', event.code);
      call.span.setStatus({ code: SpanStatusCode.ERROR, message: event.code });
    }
    if (upstream !== undefined && call.executedAt !== undefined) traceUpstream(call, call.executedAt, upstream, event);
    if (!call.served) {
      open.delete(event.callId);
      call.span.end(event.at);
    }
  };

  // The upstream call is the execution bracket of a call that acted on an MCP server; it is written once the receipt
  // names the server and tool, with the bracket's own times.
  const traceUpstream = (call: OpenCall, startTime: number, upstream: { server: string; tool?: string }, event: ToolgateEventMap['tool-result']): void => {
    const tool = upstream.tool ?? event.receipt.tool;
    const span = tracer.startSpan(
      `${TOOL_CALL} ${tool}`,
      {
        kind: SpanKind.CLIENT,
        startTime,
        attributes: { 'mcp.method.name': TOOL_CALL, 'gen_ai.operation.name': EXECUTE_TOOL, 'gen_ai.tool.name': tool, 'toolgate.upstream.server': upstream.server },
      },
      childOf(call),
    );
    const failed = event.ok ? undefined : event.code;
    if (failed !== undefined && call.executedUntil !== undefined) {
      span.setAttribute('error.type', failed);
      span.setStatus({ code: SpanStatusCode.ERROR, message: failed });
    }
    span.end(call.executedUntil ?? event.at);
  };

  const detach = [
    registry.on('tool-call-requested', (event) => {
      const call = open.get(event.callId) ?? openInProcess(event);
      if (options.recordArguments === true) call.span.setAttribute('gen_ai.tool.call.arguments', JSON.stringify(event.toolInput) ?? 'null');
    }),
    registry.on('policy-decided', (event) => {
      const call = open.get(event.callId);
      if (call === undefined) return;
      const { decision } = event;
      const attributes: Attributes = {
        'toolgate.policy.stage': event.stage,
        'toolgate.policy.decision': decision.kind,
        'toolgate.policy.rule_ids': decision.matched.map((rule) => rule.id),
        'toolgate.policy.rule_sources': decision.matched.map((rule) => rule.source),
      };
      if (event.policyVersion !== undefined) attributes['toolgate.policy.version'] = event.policyVersion;
      // A deny reason is one of a closed set; an ask reason is the policy's own word, except from a hook, whose free text stays out.
      if (decision.kind === 'deny' || (decision.kind === 'ask' && decision.reason !== undefined && event.stage !== 'hooks')) attributes['toolgate.policy.reason'] = decision.reason ?? '';
      call.span.addEvent('toolgate.policy.decided', attributes, event.at);
    }),
    registry.on('approval-requested', (event) => {
      const call = open.get(event.callId);
      if (call === undefined) return;
      call.approval?.end(event.at);
      const attributes: Attributes = { 'gen_ai.tool.name': event.toolName, 'gen_ai.tool.call.id': event.callId, 'toolgate.approval.action_digest': event.actionDigest };
      if (event.action !== undefined) attributes['toolgate.approval.action'] = event.action;
      call.approval = tracer.startSpan(`toolgate.approval ${event.toolName}`, { kind: SpanKind.INTERNAL, startTime: event.at, attributes }, childOf(call));
    }),
    registry.on('approval-resolved', (event) => {
      const call = open.get(event.callId);
      const span = call?.approval;
      if (call === undefined || span === undefined) return;
      call.approval = undefined;
      const { decision } = event;
      span.setAttribute('toolgate.approval.outcome', decision.outcome);
      if ('scope' in decision && decision.scope !== undefined) span.setAttribute('toolgate.approval.scope', decision.scope);
      if ('by' in decision && decision.by !== undefined) span.setAttribute('toolgate.approval.by', decision.by);
      if (decision.outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: 'approval_error' });
      span.end(event.at);
    }),
    registry.on('tool-call-started', (event) => {
      const call = open.get(event.callId);
      if (call !== undefined) call.executedAt = event.at;
    }),
    registry.on('tool-call-finished', (event) => {
      const call = open.get(event.callId);
      if (call !== undefined) call.executedUntil = event.at;
    }),
    registry.on('tool-call-failed', (event) => {
      const call = open.get(event.callId);
      if (call !== undefined) call.executedUntil = event.at;
    }),
    registry.on('tool-result', onResult),
  ];

  const observeServedCall: ObserveServedCall = async (served: ServedCall, run) => {
    const attributes: Attributes = {
      'mcp.method.name': TOOL_CALL,
      'gen_ai.operation.name': EXECUTE_TOOL,
      'gen_ai.tool.name': served.tool,
      'gen_ai.tool.call.id': served.callId,
      'jsonrpc.request.id': String(served.requestId),
      'network.transport': served.transport === 'stdio' ? 'pipe' : 'tcp',
    };
    if (served.transport === 'http') attributes['network.protocol.name'] = 'http';
    if (served.sessionId !== undefined) attributes['mcp.session.id'] = served.sessionId;
    const span = tracer.startSpan(`${TOOL_CALL} ${served.tool}`, { kind: SpanKind.SERVER, attributes });
    const call: OpenCall = { span, served: true };
    open.set(served.callId, call);
    try {
      const result = await run();
      // A call answered before the pipeline ran (a withheld upstream tool) has no code of its own.
      if (result.isError === true && call.failed !== true) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool_error' });
      }
      return result;
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.name : '_OTHER');
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      open.delete(served.callId);
      call.approval?.end();
      span.end();
    }
  };

  return {
    observeServedCall,
    detach() {
      for (const off of detach) off();
    },
  };
}
