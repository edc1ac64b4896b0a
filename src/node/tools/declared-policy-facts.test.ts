import { describe, expect, it } from 'vitest';
import { createPolicy, createToolRegistry, defineTool, ToolDefinitionError, type AnyToolDefinition, type McpCallInput, type PolicyRule } from '../../core/internal.js';
import { compileTool } from '../../core/tools/compile-tool.js';
import { createFakeHost } from '../../testing/create-fake-host.js';
import { gitCommitTool } from './git-commit-tool.js';
import { gitStatusTool } from './git-status-tool.js';
import { mcpCallTool } from './mcp-call-tool.js';

const deny = (rule: string): PolicyRule => ({ rule, decision: 'deny', source: 'project' });
const renamed = (tool: AnyToolDefinition, name: string): AnyToolDefinition => ({ ...tool, name });

/** The policy reads what a tool declares, never its name: a renamed built-in keeps its rules, a namesake gains none. */
describe('policy facts a tool declares', () => {
  it('a renamed git tool keeps its Bash rule coverage through its declared argv', () => {
    const policy = createPolicy({ rules: [deny('Bash(git status)'), deny('Bash(git commit:*)')] });
    const status = compileTool(renamed(gitStatusTool, 'repo_status')).policyView;
    const commit = compileTool(renamed(gitCommitTool, 'save_work')).policyView;
    expect(status.fixedArgv).toEqual(['git', 'status']);
    expect(policy.decideArguments({ tool: status, agent: undefined, args: {}, target: { path: '.' }, gateApproved: false })).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
    expect(policy.decideArguments({ tool: commit, agent: undefined, args: { message: 'm' }, target: { path: '.' }, gateApproved: true })).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
  });

  it('a tool merely named like a git built-in, declaring no argv, is not judged as running git', () => {
    const policy = createPolicy({ rules: [deny('Bash(git status)')] });
    const namesake = compileTool(
      defineTool({ name: 'git_status', description: 'Not git.', input: { type: 'object' }, policy: { fsScoped: true }, policyTarget: () => ({ path: '.' }), dispatch: () => null }),
    ).policyView;
    expect(namesake.name).toBe('git_status');
    expect(policy.decideArguments({ tool: namesake, agent: undefined, args: {}, target: { path: '.' }, gateApproved: false }).kind).toBe('allow');
  });

  it('a renamed mcp_call still answers to the rules of the upstream tool it reaches', async () => {
    const upstream: McpCallInput[] = [];
    const host = { ...createFakeHost(), mcp: { call: (input: McpCallInput) => (upstream.push(input), Promise.resolve({ content: [] })) } };
    const policy = createPolicy({ rules: [{ rule: 'upstream_call', decision: 'allow', source: 'project' }, deny('mcp__up__echo')], mcpServers: ['up'], mode: 'auto' });
    const registry = createToolRegistry({ tools: [renamed(mcpCallTool, 'upstream_call')], host, policy });
    const context = { grantedTools: ['upstream_call'] };
    const denied = await registry.dispatch({ callId: 'd', name: 'upstream_call', arguments: { server: 'up', tool: 'echo' } }, context);
    expect(!denied.ok && denied.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'rule_denied' });
    const allowed = await registry.dispatch({ callId: 'a', name: 'upstream_call', arguments: { server: 'up', tool: 'other' } }, context);
    expect(allowed.ok).toBe(true);
    expect(upstream.map((input) => input.tool)).toEqual(['other']);
  });

  it('a malformed declaration is refused when the tool is compiled', () => {
    for (const fixedArgv of [[], [''], ['git', 3], 'git status', Array.from({ length: 17 }, () => 'x')]) {
      expect(() => compileTool({ ...gitStatusTool, fixedArgv } as unknown as AnyToolDefinition)).toThrow(ToolDefinitionError);
    }
    expect(() => compileTool({ ...mcpCallTool, delegatesTo: 'http' } as unknown as AnyToolDefinition)).toThrow(ToolDefinitionError);
  });
});
