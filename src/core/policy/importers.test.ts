import { describe, expect, test } from 'vitest';
import { parse } from 'smol-toml';
import { createPolicy } from './create-policy.js';
import { importClaudeSettings } from './import-claude-settings.js';
import { importGeminiPolicies } from './import-gemini-policies.js';

describe('importClaudeSettings: malformed and lossy input', () => {
  test('every problem becomes a warning naming the rule; nothing half-loads', () => {
    const imported = importClaudeSettings([
      { scope: 'project', settings: { permissions: { allow: 'Bash', deny: [42, 'Task(x)', 'WebSearch(cats)'], ask: ['Bash(git push:*)'], defaultMode: 'yolo' } }, file: 'p.json' },
      { scope: 'team' as never, settings: {}, file: 't.json' },
      { scope: 'user', settings: null },
      { scope: 'user', settings: { permissions: { defaultMode: 'plan' } } },
    ]);
    expect(imported.rules.map((rule) => rule.rule)).toEqual(['Bash(git push:*)']);
    expect(imported.mode).toBe('plan');
    expect(imported.warnings).toEqual([
      'p.json: project.deny[0] is not a string; skipped',
      'p.json: rule "Task(x)" was skipped: it names a tool with no toolgate equivalent',
      'p.json: rule "WebSearch(cats)" was skipped: its specifier cannot be mapped',
      'p.json: permissions.allow is not a list; skipped',
      'p.json: defaultMode "yolo" is unknown; ignored',
      't.json: unknown scope "team" skipped',
    ]);
  });

  test('defaultMode follows Claude Code precedence: managed, local, project, user', () => {
    const imported = importClaudeSettings([
      { scope: 'user', settings: { permissions: { defaultMode: 'acceptEdits' } } },
      { scope: 'project', settings: { permissions: { defaultMode: 'plan' } } },
    ]);
    expect(imported.mode).toBe('plan');
  });

  test('managed switches come from the managed scope only', () => {
    const fromUser = importClaudeSettings([{ scope: 'user', settings: { allowManagedPermissionRulesOnly: true, disableAutoMode: true, permissions: {} } }]);
    expect(fromUser.managed).toEqual({});
    const fromManaged = importClaudeSettings([{ scope: 'managed', settings: { allowManagedPermissionRulesOnly: true, permissions: { deny: ['Bash(sudo:*)'] } } }, { scope: 'user', settings: { permissions: { allow: ['Bash(sudo:*)'] } } }]);
    expect(fromManaged.managed).toEqual({ allowManagedRulesOnly: true });
    const policy = createPolicy({ rules: fromManaged.rules, managed: fromManaged.managed, allowedCommandGlobs: ['*'] });
    expect(policy.warnings).toHaveLength(1);
    expect(policy.explain({ tool: 'run_command', target: { command: 'sudo ls' } }).decision.kind).toBe('deny');
  });
});

describe('importGeminiPolicies: malformed and lossy input', () => {
  test('bad tables are skipped with warnings naming them', () => {
    const document = parse(`
[[rule]]
toolName = "run_shell_command"
decision = "maybe"

[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 5000

[[rule]]
toolName = "web_fetch"
argsPattern = "("
decision = "deny"

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git log"
argsPattern = "x"
decision = "deny"
priority = 1
`);
    const imported = importGeminiPolicies([{ tier: 'user', document, file: '/h/.gemini/policies/p.toml' }, { tier: 'root' as never, document: {} }, { tier: 'user', document: { rule: 'x' }, file: 'q.toml' }]);
    expect(imported.rules).toHaveLength(1);
    expect(imported.rules[0]).toMatchObject({ decision: 'deny', match: { argv: ['git', 'log*', '*'] }, priority: 3001 });
    expect(imported.warnings.map((warning) => warning.replace(/^.*?rule\[(\d)\]/, 'rule[$1]'))).toEqual([
      'rule[0] has no valid decision (allow, deny, ask_user); skipped',
      'rule[1] has a priority outside 0–999; skipped',
      'rule[2] uses argsPattern/commandRegex, matched against the canonical JSON of toolgate\'s arguments (names may differ)',
      'rule[2] has an invalid regular expression; skipped',
      'rule[3] combines commandPrefix with argsPattern/commandRegex; toolgate keeps the prefix only',
      'root policy: unknown tier "root" skipped',
      'q.toml: "rule" must be an array of tables; skipped',
    ]);
  });

  test('a tool-less rule covers every tool; an MCP wildcard maps to the server', () => {
    const imported = importGeminiPolicies([
      { tier: 'admin', document: { rule: [{ decision: 'deny', priority: 1 }, { toolName: 'github__*', decision: 'allow', priority: 2 }] } },
    ]);
    expect(imported.rules.map((rule) => [rule.tool, rule.source, rule.priority])).toEqual([
      ['*', 'managed', 4001],
      ['mcp__github', 'managed', 4002],
    ]);
  });
});
