import type { ArgumentPolicyInput, PolicyToolView } from '../policy-types.js';
import type { PolicyTarget, ToolPolicyClass, ToolRisk } from '../../tools/tool-types.js';

type Kind = 'command' | 'read' | 'write' | 'http' | 'search' | 'mcp' | 'gated' | 'plain';

const CLASSES: Record<Kind, ToolPolicyClass> = {
  command: { spawnsProcess: true },
  read: { fsScoped: true },
  write: { fsScoped: true, fsWrite: true },
  http: { egress: 'http' },
  search: { egress: 'search' },
  mcp: { egress: 'mcp' },
  gated: { spawnsProcess: true, requiresGate: true },
  plain: {},
};

const NAMES: Record<Kind, string> = {
  command: 'run_command',
  read: 'read_file',
  write: 'write_file',
  http: 'http_request',
  search: 'web_search',
  mcp: 'mcp_github_create_issue',
  gated: 'git_commit',
  plain: 'add_numbers',
};

/** A policy view like the registry compiles, for policy unit tests. */
export function toolView(kind: Kind, overrides: { name?: string; risk?: ToolRisk; fixedArgv?: readonly string[]; delegatesTo?: 'mcp' } = {}): PolicyToolView {
  const policy = CLASSES[kind];
  const effect = policy.spawnsProcess === true ? 'execute' : policy.fsWrite === true ? 'write' : policy.egress !== undefined ? 'external' : 'read';
  return {
    name: overrides.name ?? NAMES[kind],
    version: undefined,
    source: kind === 'mcp' ? 'mcp' : 'builtin',
    effect,
    risk: overrides.risk ?? (effect === 'execute' ? 'high' : effect === 'read' ? 'low' : 'medium'),
    policy: {
      fsScoped: policy.fsScoped ?? false,
      fsWrite: policy.fsWrite ?? false,
      spawnsProcess: policy.spawnsProcess ?? false,
      egress: policy.egress,
      os: false,
      requiresGate: policy.requiresGate ?? false,
    },
    permissions: [],
    readOnly: effect === 'read',
    ...(overrides.fixedArgv === undefined ? {} : { fixedArgv: overrides.fixedArgv }),
    ...(overrides.delegatesTo === undefined ? {} : { delegatesTo: overrides.delegatesTo }),
  };
}

export function callOf(kind: Kind, target: PolicyTarget | undefined, extra: Partial<ArgumentPolicyInput> = {}): ArgumentPolicyInput {
  return { tool: toolView(kind), agent: undefined, args: {}, target, gateApproved: false, ...extra };
}
