import { trace, type Tracer } from '@opentelemetry/api';
import type { ToolRegistry } from '../core/internal.js';
import type { ObserveServedCall } from '../mcp/index.js';
import { CallSpans } from './call-spans.js';

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
  const spans = new CallSpans(options.tracer ?? trace.getTracer('toolgate'), options.recordArguments === true);
  const detach = [
    registry.on('tool-call-requested', (event) => spans.requested(event)),
    registry.on('policy-decided', (event) => spans.decided(event)),
    registry.on('approval-requested', (event) => spans.approvalRequested(event)),
    registry.on('approval-resolved', (event) => spans.approvalResolved(event)),
    registry.on('tool-call-started', (event) => spans.executing(event)),
    registry.on('tool-call-finished', (event) => spans.executed(event)),
    registry.on('tool-call-failed', (event) => spans.executed(event)),
    registry.on('tool-result', (event) => spans.result(event)),
  ];
  return {
    observeServedCall: (served, run) => spans.served(served, run),
    detach() {
      for (const off of detach) off();
    },
  };
}
