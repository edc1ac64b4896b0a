import type { ArgumentPolicyInput, PolicyDecision, ToolPolicy } from './policy-types.js';

const ALLOW: PolicyDecision = Object.freeze({ kind: 'allow', matched: Object.freeze([]) });

/**
 * The policy a registry uses when none is given: the seed's guardrails with
 * every allowlist empty, so it fails closed. No command runs, no domain is
 * reached, no MCP server is called, and gated tools need `gateApproved`.
 * `createPolicy` builds the configurable version of the same floor.
 */
export const guardrailFloor: ToolPolicy = Object.freeze({
  version: 0,
  decideIdentity: () => ALLOW,
  decideArguments(input: ArgumentPolicyInput): PolicyDecision {
    const { policy } = input.tool;
    if (policy.requiresGate && !input.gateApproved) return { kind: 'deny', reason: 'gate_required', matched: [] };
    if (policy.spawnsProcess && input.target?.command !== undefined) return { kind: 'deny', reason: 'command_not_allowed', matched: [] };
    if (policy.egress === 'http' && input.target?.url !== undefined) return { kind: 'deny', reason: 'domain_not_allowed', matched: [] };
    if (policy.egress === 'mcp') return { kind: 'deny', reason: 'server_not_allowed', matched: [] };
    return ALLOW;
  },
});
