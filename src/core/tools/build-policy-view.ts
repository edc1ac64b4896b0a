import type { ToolActionClass } from '../policy/approval-types.js';
import type { PolicyToolView } from '../policy/policy-types.js';
import type { AnyToolDefinition, ToolEffect, ToolRisk } from './tool-types.js';

/** What the policy sees of a tool, and the action class that governs it by approval. */
export function buildPolicyView(definition: AnyToolDefinition, name: string): { readonly policyView: PolicyToolView; readonly actionClass: ToolActionClass | undefined } {
  const policy = definition.policy ?? {};
  const effect: ToolEffect = definition.effect ?? deriveEffect(policy);
  const risk: ToolRisk = definition.risk ?? deriveRisk(effect);
  const actionClass = deriveActionClass(definition);
  const readOnly = definition.facts?.readOnly ?? (actionClass === undefined && effect === 'read');
  const policyView: PolicyToolView = Object.freeze({
    name,
    version: definition.version,
    source: definition.source ?? 'plugin',
    effect,
    risk,
    policy: Object.freeze({
      fsScoped: policy.fsScoped ?? false,
      fsWrite: policy.fsWrite ?? false,
      spawnsProcess: policy.spawnsProcess ?? false,
      egress: policy.egress,
      os: policy.os ?? false,
      requiresGate: policy.requiresGate ?? false,
    }),
    permissions: Object.freeze([...(definition.permissions ?? [])]),
    readOnly,
    ...(definition.fixedArgv === undefined ? {} : { fixedArgv: Object.freeze([...definition.fixedArgv]) }),
    ...(definition.delegatesTo === undefined ? {} : { delegatesTo: definition.delegatesTo }),
  });
  return { policyView, actionClass };
}

function deriveEffect(policy: NonNullable<AnyToolDefinition['policy']>): ToolEffect {
  if (policy.spawnsProcess === true) return 'execute';
  if (policy.fsWrite === true) return 'write';
  if (policy.egress !== undefined || policy.os === true) return 'external';
  return 'read';
}

function deriveRisk(effect: ToolEffect): ToolRisk {
  switch (effect) {
    case 'read':
      return 'low';
    case 'write':
    case 'external':
      return 'medium';
    case 'execute':
      return 'high';
  }
}

/**
 * Any egress → egress, fsWrite → fs_write, os → os, and spawnsProcess →
 * process only when the command is model-controlled (the tool exposes a
 * policy target); a pre-approved `git_status` that exposes none is not gated.
 * Egress comes first: an upstream MCP tool that writes files is another
 * program's write, which `accept-edits` (workspace writes) does not approve.
 */
function deriveActionClass(definition: AnyToolDefinition): ToolActionClass | undefined {
  const policy = definition.policy ?? {};
  if (policy.egress !== undefined) return 'egress';
  if (policy.fsWrite === true) return 'fs_write';
  if (policy.os === true) return 'os';
  if (policy.spawnsProcess === true && definition.policyTarget !== undefined) return 'process';
  return undefined;
}
