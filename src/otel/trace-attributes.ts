import type { Attributes } from '@opentelemetry/api';
import type { ToolgateEventMap } from '../core/internal.js';
import type { ServedCall } from '../mcp/index.js';

export const TOOL_CALL = 'tools/call';
export const EXECUTE_TOOL = 'execute_tool';

/** What a call's receipt adds to its span: names, ids, codes and outcomes, never an argument. */
export function receiptAttributes(receipt: ToolgateEventMap['tool-result']['receipt']): Attributes {
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
  return attributes;
}

/** The attributes of a policy decision's span event: the stage, the decision, the rules it matched. */
export function policyDecisionAttributes(event: ToolgateEventMap['policy-decided']): Attributes {
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
  return attributes;
}

/** The attributes of an approval wait's span: the tool, the call, and the digest of the action a person approves. */
export function approvalAttributes(event: ToolgateEventMap['approval-requested']): Attributes {
  const attributes: Attributes = { 'gen_ai.tool.name': event.toolName, 'gen_ai.tool.call.id': event.callId, 'toolgate.approval.action_digest': event.actionDigest };
  if (event.action !== undefined) attributes['toolgate.approval.action'] = event.action;
  return attributes;
}

/** The attributes of a call the gateway serves, with the MCP names of its method, request, transport and session. */
export function servedCallAttributes(served: ServedCall): Attributes {
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
  return attributes;
}
