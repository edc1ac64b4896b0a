import { describe, expect, it } from 'vitest';
import { compileRule } from './compile-rule.js';
import type { ArgumentPolicyInput } from './policy-types.js';
import { createRuleIndex } from './rule-index.js';
import { toolView } from './__fixtures__/tool-views.js';

const rules = [
  compileRule({ rule: 'Read(secrets/**)', decision: 'deny', source: 'project' }, 0),
  compileRule({ rule: 'Read(docs/**)', decision: 'allow', source: 'project' }, 1),
  compileRule({ rule: 'Bash(git push:*)', decision: 'ask', source: 'project' }, 2),
];

const upstreamRead = (path: string): ArgumentPolicyInput => {
  const base = toolView('mcp', { name: 'mcp_fs_read_text_file' });
  return {
    tool: { ...base, policy: { ...base.policy, fsScoped: true } },
    agent: undefined,
    args: { path },
    target: { server: 'fs', mcpTool: 'read_text_file', path },
    gateApproved: false,
  };
};

describe('createRuleIndex', () => {
  it('finds the rules that name a tool, the same list each time', () => {
    const index = createRuleIndex(rules);
    expect(index.forTool('read_file').map((rule) => rule.id)).toEqual(['project#0', 'project#1']);
    expect(index.forTool('read_file')).toBe(index.forTool('read_file'));
    expect(index.forTool('web_search')).toEqual([]);
  });

  it("gives a built-in's call its own rules only", () => {
    const index = createRuleIndex(rules);
    const input: ArgumentPolicyInput = { tool: toolView('read'), agent: undefined, args: {}, target: { path: 'a' }, gateApproved: false };
    expect(index.forCall(input)).toBe(index.forTool('read_file'));
  });

  it("gives an upstream read the deny rules of the built-in it stands for, never its allow rules, covering any tool name", () => {
    const index = createRuleIndex(rules);
    const reaching = index.forCall(upstreamRead('secrets/key'));
    expect(reaching.map((rule) => rule.id)).toEqual(['project#0']);
    expect(reaching[0]?.tools('mcp_fs_read_text_file')).toBe(true);
    expect(index.forCall(upstreamRead('other'))).toBe(reaching);
    // The rule itself is not changed: the built-in's own list still names only its tools.
    expect(index.forTool('read_file')[0]?.tools('mcp_fs_read_text_file')).toBe(false);
  });
});
