import { metrics, type Attributes, type Meter } from '@opentelemetry/api';
import type { ToolRegistry } from '../core/internal.js';

/** Denial reasons that mean a call tried to leave its sandbox or scope (a scope, a protected path, a command, a domain, a plain-HTTP URL or an MCP server outside what the policy allows). */
export const ESCAPE_REASONS: ReadonlySet<string> = new Set(['scope_denied', 'protected_path', 'command_not_allowed', 'domain_not_allowed', 'insecure_url', 'server_not_allowed']);

export interface InstrumentRegistryOptions {
  /** Default: `metrics.getMeter('toolgate')` — a no-op until an OpenTelemetry SDK is registered. */
  readonly meter?: Meter;
  /** Which denial reasons count as escape attempts. Default `ESCAPE_REASONS`. */
  readonly escapeReasons?: ReadonlySet<string>;
}

/**
 * Count what a registry does through `@opentelemetry/api`: invocations,
 * failures by code, denials by reason, approvals by outcome, scope or
 * sandbox escape attempts, and a duration histogram. Everything is wired
 * through `registry.on(…)`; attributes are tool names, codes and reasons,
 * never arguments. Returns a function that detaches the listeners.
 */
export function instrumentRegistry(registry: Pick<ToolRegistry, 'on'>, options: InstrumentRegistryOptions = {}): () => void {
  const meter = options.meter ?? metrics.getMeter('toolgate');
  const escapeReasons = options.escapeReasons ?? ESCAPE_REASONS;
  const invocations = meter.createCounter('toolgate.tool.invocations', { description: 'Tool calls that reached an outcome.' });
  const failures = meter.createCounter('toolgate.tool.failures', { description: 'Tool calls that failed, by error code.' });
  const denials = meter.createCounter('toolgate.policy.denials', { description: 'Calls refused by policy or by the host, by reason.' });
  const approvals = meter.createCounter('toolgate.approvals', { description: 'Approval requests, by outcome.' });
  const escapes = meter.createCounter('toolgate.escape_attempts', { description: 'Calls refused for trying to leave their scope or sandbox.' });
  const duration = meter.createHistogram('toolgate.tool.duration', { description: 'Tool call duration, admission to outcome.', unit: 'ms' });

  const deny = (tool: string, reason: string, stage: string): void => {
    const attributes: Attributes = { 'toolgate.tool': tool, 'toolgate.reason': reason, 'toolgate.stage': stage };
    denials.add(1, attributes);
    if (escapeReasons.has(reason)) escapes.add(1, attributes);
  };

  const detach = [
    registry.on('tool-result', (event) => {
      const attributes: Attributes = { 'toolgate.tool': event.toolName, 'toolgate.status': event.receipt.status };
      invocations.add(1, attributes);
      duration.record(event.durationMs, { 'toolgate.tool': event.toolName, 'toolgate.ok': event.ok });
      if (!event.ok) failures.add(1, { 'toolgate.tool': event.toolName, 'toolgate.code': event.code });
    }),
    registry.on('policy-decided', (event) => {
      if (event.decision.kind === 'deny') deny(event.toolName, event.decision.reason, event.stage);
    }),
    // A host's own refusal (e.g. a path that resolves outside the jail) surfaces as a failed execution.
    registry.on('tool-call-failed', (event) => {
      const reason = (event.error as { reason?: unknown }).reason;
      if (event.error.code === 'POLICY_DENIED') deny(event.toolName, typeof reason === 'string' ? reason : 'unspecified', 'host');
    }),
    registry.on('approval-resolved', (event) => {
      approvals.add(1, { 'toolgate.tool': event.toolName, 'toolgate.outcome': event.decision.outcome });
    }),
  ];
  return () => {
    for (const off of detach) off();
  };
}
