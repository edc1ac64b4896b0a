import { describe, expect, it } from 'vitest';
import type { PolicyTarget } from '../tools/tool-types.js';
import { createPolicy } from './create-policy.js';
import type { ArgumentPolicyInput, PolicyDecision, PolicyToolView } from './policy-types.js';
import type { PolicyRule } from './rule-types.js';
import { toolView } from './__fixtures__/tool-views.js';

/** An upstream tool as build-upstream-tool compiles it: MCP egress, plus the classes its targets give it. */
function upstream(name: string, access: 'read' | 'write' | undefined, governed = true): PolicyToolView {
  const base = toolView('mcp', { name });
  return {
    ...base,
    policy: { ...base.policy, egress: governed ? 'mcp' : undefined, fsScoped: access !== undefined, fsWrite: access === 'write' },
  };
}

const call = (tool: PolicyToolView, target: Omit<PolicyTarget, 'server'>): ArgumentPolicyInput => ({
  tool,
  agent: undefined,
  args: {},
  target: { server: 'fs', mcpTool: tool.name.replace(/^mcp_fs_/, ''), ...target },
  gateApproved: false,
});

const rules = (entries: Record<'allow' | 'ask' | 'deny', readonly string[]>): PolicyRule[] =>
  (['allow', 'ask', 'deny'] as const).flatMap((decision) => entries[decision].map((rule) => ({ rule, decision, source: 'project' as const })));

const policyWith = (entries: Partial<Record<'allow' | 'ask' | 'deny', readonly string[]>>) =>
  createPolicy({
    rules: rules({ allow: [], ask: [], deny: [], ...entries }),
    mcpServers: ['fs'],
    allowedDomains: ['docs.example.com'],
    allowedCommands: ['git status'],
    scope: { tier: 'workspace-write', roots: ['/work/repo'] },
  });

const summary = (decision: PolicyDecision): string => (decision.kind === 'deny' ? decision.reason : decision.kind);

const read = upstream('mcp_fs_read_text_file', 'read');
const write = upstream('mcp_fs_write_file', 'write');
const fetcher = upstream('mcp_web_fetch', undefined);
const runner = upstream('mcp_sh_run', undefined);

describe('the floor judges an upstream tool by its argument targets', () => {
  const policy = policyWith({});
  it.each<[string, ArgumentPolicyInput, string]>([
    ['a relative path inside the workspace', call(read, { path: 'src/a.ts' }), 'allow'],
    ['an absolute path inside the workspace', call(read, { path: '/work/repo/src/a.ts' }), 'allow'],
    ['a path climbing out', call(read, { path: '../other/a.ts' }), 'scope_denied'],
    ['an absolute path outside the workspace', call(write, { path: '/etc/passwd' }), 'scope_denied'],
    ['a second path outside the workspace', call(write, { path: 'a.txt', paths: ['/tmp/b.txt'] }), 'scope_denied'],
    ['a home path', call(read, { path: '~/.ssh/id_rsa' }), 'scope_denied'],
    ['a path with a NUL byte', call(read, { path: 'a\0b' }), 'scope_denied'],
    ['a URL on an allowed domain', call(fetcher, { url: 'https://docs.example.com/page' }), 'allow'],
    ['a URL on another domain', call(fetcher, { url: 'https://evil.example.net/' }), 'domain_not_allowed'],
    ['a plain-HTTP URL', call(fetcher, { url: 'http://docs.example.com/page' }), 'insecure_url'],
    ['an allowed command', call(runner, { command: ['git', 'status'] }), 'allow'],
    ['another command', call(runner, { command: 'git push --force' }), 'command_not_allowed'],
  ])('%s', (_label, input, expected) => {
    expect(summary(policy.decideArguments(input))).toBe(expected);
  });

  it('judges the targets of an upstream tool that is not governed (trusted, read-only) the same way', () => {
    const trustedRead = upstream('mcp_fs_read_text_file', 'read', false);
    expect(summary(policy.decideArguments(call(trustedRead, { path: '/etc/shadow' })))).toBe('scope_denied');
    expect(summary(policy.decideArguments(call(upstream('mcp_web_fetch', undefined, false), { url: 'https://evil.example.net/' })))).toBe('domain_not_allowed');
  });

  it('leaves a built-in without an HTTP class alone: the URL floor is for upstream targets and http_request', () => {
    const search = createPolicy({ scope: 'workspace-write' }).decideArguments({ tool: toolView('search'), agent: undefined, args: {}, target: { query: 'x', url: 'https://search.example/' }, gateApproved: false });
    expect(search.kind).toBe('allow');
  });

  it('asks before an upstream write to a protected path, as for a built-in write', () => {
    expect(summary(policy.decideArguments(call(write, { path: '.git/config' })))).toBe('ask');
  });
});

describe("the built-ins' deny and ask rules reach an upstream tool by its targets", () => {
  it('Read(./.env) denies an upstream read of .env, however the path is spelled', () => {
    const policy = policyWith({ deny: ['Read(./.env)'] });
    for (const path of ['.env', './.env', 'src/../.env', '/work/repo/.env', '.ENV']) {
      expect(summary(policy.decideArguments(call(read, { path }))), path).toBe('rule_denied');
    }
    expect(summary(policy.decideArguments(call(read, { path: 'README.md' })))).toBe('allow');
    expect(summary(policy.decideArguments(call(read, { path: 'a.txt', paths: ['.env'] })))).toBe('rule_denied');
  });

  it('Read rules reach a tool that writes too (an edit can show the file); Edit rules only a tool that writes', () => {
    const policy = policyWith({ deny: ['Read(./.env)', 'Edit(./src/**)'] });
    expect(summary(policy.decideArguments(call(write, { path: '.env' })))).toBe('rule_denied');
    expect(summary(policy.decideArguments(call(write, { path: 'src/a.ts' })))).toBe('rule_denied');
    expect(summary(policy.decideArguments(call(read, { path: 'src/a.ts' })))).toBe('allow');
  });

  it('Grep and LS deny rules reach upstream reads too', () => {
    expect(summary(policyWith({ deny: ['LS(./private)'] }).decideArguments(call(read, { path: 'private' })))).toBe('rule_denied');
    expect(summary(policyWith({ deny: ['Grep(./private/**)'] }).decideArguments(call(read, { path: 'private/x' })))).toBe('rule_denied');
  });

  it('WebFetch and Bash deny rules reach URL and command targets', () => {
    const policy = createPolicy({
      rules: rules({ allow: [], ask: [], deny: ['WebFetch(domain:docs.example.com)', 'Bash(git status:*)'] }),
      mcpServers: ['fs'],
      allowedDomains: ['docs.example.com'],
      allowedCommands: ['git status'],
    });
    expect(summary(policy.decideArguments(call(fetcher, { url: 'https://docs.example.com/' })))).toBe('rule_denied');
    expect(summary(policy.decideArguments(call(runner, { command: 'git status' })))).toBe('rule_denied');
  });

  it('an ask rule on a built-in makes the upstream call ask', () => {
    const decision = policyWith({ ask: ['Read(./secrets/**)'] }).decideArguments(call(read, { path: 'secrets/key' }));
    expect(decision).toMatchObject({ kind: 'ask', reason: 'rule' });
  });

  it("never lets a built-in's allow rule allow an upstream tool; a rule that names the tool does", () => {
    const byBuiltin = policyWith({ allow: ['Read(./src/**)'] }).decideArguments(call(read, { path: 'src/a.ts' }));
    expect(byBuiltin.matched).toEqual([]);
    const byName = policyWith({ allow: ['mcp__fs__read_text_file(path:./src/**)'] }).decideArguments(call(read, { path: 'src/a.ts' }));
    expect(byName.matched.map((rule) => rule.decision)).toEqual(['allow']);
  });

  it('a deny on the upstream tool itself still wins over an allow that names it', () => {
    const decision = policyWith({ allow: ['mcp__fs'], deny: ['Read(./.env)'] }).decideArguments(call(read, { path: '.env' }));
    expect(summary(decision)).toBe('rule_denied');
  });

  it('a built-in rule does not reach an upstream call whose targets name nothing of its kind', () => {
    const policy = policyWith({ deny: ['Read', 'WebFetch'] });
    expect(summary(policy.decideArguments(call(read, {})))).toBe('allow');
    expect(summary(policy.decideArguments(call(fetcher, {})))).toBe('allow');
    expect(summary(policy.decideArguments(call(fetcher, { url: 'https://docs.example.com/' })))).toBe('rule_denied');
  });

  it('explain lists the built-in rule that decided', () => {
    const explanation = policyWith({ deny: ['Read(./.env)'] }).explain({ tool: read, args: {}, target: { server: 'fs', path: '.env' } });
    expect(explanation.decision.kind).toBe('deny');
    expect(explanation.rules).toMatchObject([{ rule: 'Read(./.env)', decision: 'deny', winner: true }]);
  });
});
