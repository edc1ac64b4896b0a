import type { DispatchState, StageResult } from '../dispatch/dispatch-state.js';
import { projectedArguments } from '../dispatch/projected-arguments.js';
import { displayAction, type ActionDisplay } from '../action/display-action.js';
import { redactedLine } from '../policy/redacted-line.js';
import { deepFreeze } from '../tools/deep-freeze.js';
import type { ToolRisk } from '../tools/tool-types.js';
import type { ApprovalTier, ReceiptStatus, ToolReceipt } from './receipt-types.js';

const SUMMARY_LIMIT = 200;

/** The receipt tier from risk; a plain read is T0. */
export function tierOf(effect: string, risk: ToolRisk): ApprovalTier {
  if (effect === 'read' && risk === 'low') return 'T0';
  switch (risk) {
    case 'low':
      return 'T1';
    case 'medium':
      return 'T2';
    case 'high':
      return 'T3';
    case 'critical':
      return 'T4';
  }
}

function statusOf(state: DispatchState, result: StageResult): ReceiptStatus {
  if (state.replayed) return 'replayed';
  if (result.ok) return 'ok';
  const code = result.error.code;
  if (code === 'POLICY_DENIED' || code === 'DENIED_BY_USER') return 'denied';
  if (code === 'ABORTED' || code === 'ABORTED_BEFORE_DISPATCH') return 'cancelled';
  return 'error';
}

/** One line: redacted on the complete text first, then clipped. */
export function summarize(text: string): string {
  return redactedLine(text, SUMMARY_LIMIT);
}

/** What the call acted on, from its resolved action: real paths, the host, the program, the MCP server. */
function affectedEntities(target: ActionDisplay | undefined): string[] {
  if (target === undefined) return [];
  const entities: string[] = target.files.map((file) => file.path);
  if (target.http !== undefined) entities.push(target.http.host);
  const program = target.command?.argv[0];
  if (program !== undefined) entities.push(program);
  if (target.mcp !== undefined) entities.push(`mcp:${target.mcp.server}`);
  return entities;
}

/** Build the immutable receipt of a finished call. */
export function buildReceipt(state: DispatchState, result: StageResult, content: string, invocationId: string): ToolReceipt {
  const tool = state.tool;
  const policyView = tool?.policyView;
  const exitCode = result.ok ? exitCodeOf(result.value) : undefined;
  const target = state.action === undefined ? undefined : displayAction(state.action);
  const receipt: ToolReceipt = {
    invocationId,
    callId: state.call.callId,
    tool: tool?.name ?? state.call.name,
    version: tool?.version,
    agent: state.agent,
    parent: state.context.parent,
    status: statusOf(state, result),
    code: result.ok ? 'OK' : result.error.code,
    ...(exitCode === undefined ? {} : { exitCode }),
    outputSummary: summarize(result.ok ? content : result.error.message),
    affectedEntities: affectedEntities(target),
    ...(target === undefined ? {} : { target }),
    inputDigest: state.digests?.inputDigest,
    actionDigest: state.digests?.actionDigest,
    policy: {
      decision: state.decision?.kind ?? (result.ok || state.bodyStarted ? 'allow' : 'none'),
      version: tool === undefined ? undefined : state.snapshot.policy.version,
      rules: state.matched,
    },
    approval: state.approval,
    effect: policyView?.effect ?? 'read',
    risk: policyView?.risk ?? 'low',
    tier: tierOf(policyView?.effect ?? 'read', policyView?.risk ?? 'low'),
    startedAt: state.startedAt,
    durationMs: state.finishedAt - state.startedAt,
    ...(result.ok && state.attachments !== undefined && state.attachments.length > 0 ? { attachments: state.attachments.map(({ handle, mediaType, bytes }) => ({ handle, mediaType, bytes })) } : {}),
    ...(state.spill === undefined ? {} : { spill: state.spill }),
    arguments: projectedArguments(state),
  };
  return deepFreeze(receipt);
}

function exitCodeOf(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const code = (value as { exitCode?: unknown }).exitCode;
  return typeof code === 'number' ? code : undefined;
}
