import fc from 'fast-check';
import { parse } from 'smol-toml';
import { describe, expect, test } from 'vitest';
import { createPolicy } from './create-policy.js';
import { geminiStableJson } from './gemini-stable-json.js';
import { importGeminiPolicies, type GeminiApprovalMode } from './import-gemini-policies.js';

// Each case reproduces gemini-cli packages/core/src/policy: the file named in its `source`.
const ENGINE = 'policy-engine.ts ruleMatches/check';
const UTILS = 'utils.ts buildArgsPatterns';
const NAMES = 'tools/tool-names.ts TOOL_LEGACY_ALIASES, tools/mcp-tool.ts formatMcpToolName';

const POLICY = `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "git diff"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm -rf"
decision = "deny"
priority = 900

[[rule]]
toolName = "run_shell_command"
commandPrefix = "ls *"
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandRegex = "git (push|pull)[ \\"]"
decision = "ask_user"
priority = 200

[[rule]]
toolName = "run_shell_command"
commandRegex = "^npm .*"
decision = "deny"
priority = 300

[[rule]]
toolName = "run_shell_command"
argsPattern = '"dir_path":"secret'
decision = "deny"
priority = 950

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git"
decision = "deny"
priority = 50

[[rule]]
toolName = "grep_search"
decision = "deny"
priority = 10

[[rule]]
toolName = "write_file"
decision = "allow"
modes = ["yolo"]
priority = 10

[[rule]]
toolName = "replace"
decision = "deny"
modes = ["default"]
priority = 10

[[rule]]
mcpName = "github"
toolName = "create_issue"
decision = "allow"
priority = 100

[[rule]]
mcpName = "github"
toolName = "*"
decision = "ask_user"
priority = 50

[[rule]]
toolName = "mcp_jira_delete_project"
decision = "deny"
priority = 100

[[rule]]
toolName = "mcp_*"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 400

[[rule]]
toolName = "web_fetch"
interactive = false
decision = "allow"
priority = 10

[[rule]]
toolName = "google_web_search"
subagent = "researcher"
decision = "deny"
priority = 10

[[rule]]
toolName = "mcp_ops_prod_*"
decision = "deny"
priority = 100
`;

type Kind = 'allow' | 'ask' | 'deny' | 'none';
type Case = readonly [call: string, tool: string, target: Record<string, unknown>, args: Record<string, unknown>, expected: Kind, source: string];

const shell = (command: string, expected: Kind, source = UTILS, cwd?: string): Case => [
  `run_shell_command ${JSON.stringify(command)}${cwd === undefined ? '' : ` in ${cwd}`}`,
  'run_command',
  { command, ...(cwd === undefined ? {} : { path: cwd }) },
  { command, ...(cwd === undefined ? {} : { cwd }) },
  expected,
  source,
];
const argvCall = (argv: string[], expected: Kind): Case => [`run_shell_command argv ${JSON.stringify(argv)}`, 'run_command', { command: argv }, { command: argv }, expected, UTILS];
const tool = (name: string, target: Record<string, unknown>, expected: Kind, source = ENGINE): Case => [`${name} ${JSON.stringify(target)}`, name, target, target, expected, source];

const CASES: Case[] = [
  // commandPrefix: the prefix, JSON-encoded and regex-escaped, then a space or the end of the command.
  ...['git status', 'git status --short', 'git status -uno', 'git diff', 'git diff HEAD~1', 'git diff --stat main'].map((command) => shell(command, 'allow')),
  // Another word is another command: the lower `git` prefix deny takes `git statusx`; `git-status` is not git.
  ...['git statusx', 'git diffs', 'git stat'].map((command) => shell(command, 'deny')),
  ...['git-status', 'gitstatus', 'status', 'diff'].map((command) => shell(command, 'none')),
  ...['git log', 'git commit -m x', 'git add .', 'git reset --hard'].map((command) => shell(command, 'deny')),
  ...['rm -rf /', 'rm -rf build', 'rm -rf', 'rm -rf .'].map((command) => shell(command, 'deny')),
  ...['rm -rfv /', 'rm -r build', 'rm x', 'rmdir -rf x'].map((command) => shell(command, 'none')),
  // A literal `*` in commandPrefix is escaped: it matches an asterisk, never a glob.
  // toolgate runs `ls *` with a literal asterisk, shown as `ls '*'`: stricter than a shell's glob, so the allow does not apply.
  ...['ls *', 'ls * -la'].map((command) => shell(command, 'none')),
  ...['ls', 'ls -la', 'ls src', 'lsof', 'ls -R'].map((command) => shell(command, 'none')),
  // commandRegex follows `"command":"` as written.
  ...['git push', 'git push origin main', 'git pull', 'git pull --rebase', 'git push --force', 'git pull origin dev'].map((command) => shell(command, 'ask')),
  ...['echo git push', 'xgit push', 'mygit pull'].map((command) => shell(command, 'none')),
  ...['git pushx'].map((command) => shell(command, 'deny')),
  // A leading `^` sits after `"command":"`, so it can never match: the rule applies to nothing.
  ...['npm install', 'npm test', 'npm run build', 'npm', 'npm ci', 'npm publish'].map((command) => shell(command, 'none')),
  // argsPattern over the stable JSON of the shell call: its working directory too.
  ...['secret', 'secrets/x', 'secret-stuff'].map((cwd) => shell('ls -la', 'deny', ENGINE, cwd)),
  ...['src', 'public/secret'].map((cwd) => shell('ls -la', 'none', ENGINE, cwd)),
  shell('git status', 'deny', ENGINE, 'secret'),
  shell('git status', 'allow', ENGINE, 'src'),
  // An argv array is the command it runs: operators in it are literal words.
  argvCall(['git', 'status'], 'allow'),
  argvCall(['git', 'status', '&&', 'rm', '-rf', 'x'], 'allow'),
  argvCall(['git', 'status;', 'rm'], 'deny'),
  argvCall(['rm', '-rf', 'x'], 'deny'),
  argvCall(['git', 'status x'], 'deny'),
  argvCall(['git', 'diff', '--stat'], 'allow'),
  argvCall(['git', 'push', 'origin'], 'ask'),
  argvCall(['rm', '-rf'], 'deny'),
  argvCall(['rm', '-rfv'], 'none'),
  argvCall(['npm', 'install'], 'none'),
  argvCall(['git'], 'deny'),
  argvCall(['echo', 'git status'], 'none'),
  argvCall(['echo', '"command":"git status"'], 'none'),
  argvCall(['ls', '*'], 'none'),
  // Legacy aliases and current names: grep_search and search_file_content are one tool.
  tool('read_file', { path: 'a.txt' }, 'deny', NAMES),
  tool('list_directory', { path: 'src' }, 'deny', NAMES),
  // modes are read against the imported mode (default): the yolo-only allow is not imported, the default-only deny is.
  tool('write_file', { path: 'a.txt' }, 'none', ENGINE),
  tool('edit_file', { path: 'a.txt' }, 'deny', ENGINE),
  // mcpName + toolName names one tool of one server; mcpName + "*" the whole server.
  tool('mcp_github_create_issue', { server: 'github' }, 'allow', ENGINE),
  tool('mcp_github_delete_repo', { server: 'github' }, 'ask', ENGINE),
  tool('mcp_github_list_issues', { server: 'github' }, 'ask', ENGINE),
  tool('mcp_gitlab_create_issue', { server: 'gitlab' }, 'none', ENGINE),
  // A fully qualified mcp_ name is that tool.
  tool('mcp_jira_delete_project', { server: 'jira' }, 'deny', NAMES),
  tool('mcp_jira_list', { server: 'jira' }, 'none', NAMES),
  // A server wildcard names the server up to the final `_*`, underscores and all.
  tool('mcp_ops_prod_apply_change', { server: 'ops_prod' }, 'deny', ENGINE),
  tool('mcp_ops_status', { server: 'ops' }, 'none', ENGINE),
  // toolAnnotations cannot be read: the annotation-scoped allow on mcp_* is not imported.
  tool('mcp_other_read', { server: 'other' }, 'none', ENGINE),
  // interactive = false does not apply to an interactive import; subagent rules not to the main agent.
  tool('http_request', { url: 'https://example.com/' }, 'none', ENGINE),
  tool('web_search', { query: 'cats' }, 'none', ENGINE),
];

const RANK: Record<Kind, number> = { none: 1, allow: 0, ask: 1, deny: 2 };

describe('Gemini CLI policy import: decision table', () => {
  const imported = importGeminiPolicies([{ tier: 'user', document: parse(POLICY), file: 'table.toml' }]);
  const policy = createPolicy({ rules: imported.rules, allowedCommandGlobs: ['*'], allowedDomains: ['example.com'], mcpServers: ['github', 'gitlab', 'jira', 'other', 'ops', 'ops_prod'] });

  test('holds at least 100 cases', () => {
    expect(CASES.length + TIER_CASES.length).toBeGreaterThanOrEqual(100);
  });

  test.each(CASES)('%s → %s', (_call, name, target, args, expected, source) => {
    expect(source.length).toBeGreaterThan(0);
    const explained = policy.explain({ tool: name, target, args });
    const winner = explained.rules.find((rule) => rule.winner);
    expect(winner?.decision ?? 'none').toBe(expected);
  });

  test('every left-out or stricter mapping is a warning naming the rule', () => {
    expect(imported.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('rule #5 has a commandRegex starting with ^'),
        expect.stringContaining('rule #9 applies only in modes yolo'),
        expect.stringContaining('rule #14 is an allow conditioned on toolAnnotations'),
        expect.stringContaining('rule #15 applies only to non-interactive sessions'),
        expect.stringContaining('rule #16 applies only to the subagent "researcher"'),
      ]),
    );
  });
});

// Tiers and priorities: tier × 1000 + priority, so a higher tier always wins (config.ts *_POLICY_TIER).
const TIERS = ['default', 'extension', 'workspace', 'user', 'admin'] as const;
const TIER_CASES = TIERS.flatMap((low, lowIndex) => TIERS.slice(lowIndex + 1).flatMap((high) => (['allow', 'deny', 'ask_user'] as const).map((decision) => [low, high, decision] as const)));

describe('Gemini CLI policy import: tiers (config.ts *_POLICY_TIER, toml-loader.ts transformPriority)', () => {
  test.each(TIER_CASES)('%s at 999 loses to %s %s at 0', (low, high, decision) => {
    const other = decision === 'deny' ? 'allow' : 'deny';
    const result = importGeminiPolicies([
      { tier: low, document: { rule: [{ toolName: 'run_shell_command', decision: other, priority: 999 }] } },
      { tier: high, document: { rule: [{ toolName: 'run_shell_command', decision, priority: 0 }] } },
    ]);
    const decided = createPolicy({ rules: result.rules, allowedCommandGlobs: ['*'] }).explain({ tool: 'run_command', target: { command: 'make' } });
    expect(decided.rules.find((rule) => rule.winner)?.decision).toBe(decision === 'ask_user' ? 'ask' : decision);
  });
});

/**
 * A reference model of Gemini CLI's decision for one shell command: rules
 * sorted by priority (stable), the first whose pattern matches the stable
 * JSON wins, no match asks (policy-engine.ts check, interactive default).
 */
function geminiDecision(rules: readonly { prefix: string; decision: 'allow' | 'deny' | 'ask_user'; priority: number }[], command: string): Kind {
  const sorted = rules.map((rule, index) => ({ ...rule, index })).sort((left, right) => right.priority - left.priority || left.index - right.index);
  const json = geminiStableJson({ command });
  for (const rule of sorted) {
    const encoded = JSON.stringify(rule.prefix).slice(0, -1);
    const pattern = new RegExp(`${`"command":${encoded}`.replace(/[-[\]{}()*+?.,\\^$|#\s"]/g, '\\$&')}(?:[\\s"]|\\\\")`);
    if (pattern.test(json)) return rule.decision === 'ask_user' ? 'ask' : rule.decision;
  }
  return 'ask';
}

describe('Gemini CLI policy import: never looser than Gemini CLI', () => {
  const word = fc.constantFrom('git', 'status', 'push', 'rm', '-rf', 'ls', '*', 'npm', 'x', 'git-x');
  const prefix = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
  const rule = fc.record({ prefix, decision: fc.constantFrom('allow' as const, 'deny' as const, 'ask_user' as const), priority: fc.integer({ min: 0, max: 5 }) });
  type GeminiRule = { readonly prefix: string; readonly decision: 'allow' | 'deny' | 'ask_user'; readonly priority: number };
  const atLeastAsStrict = (rules: readonly GeminiRule[], words: readonly string[]): void => {
    const command = words.join(' ');
    const imported = importGeminiPolicies([{ tier: 'user', document: { rule: rules.map((entry) => ({ toolName: 'run_shell_command', commandPrefix: entry.prefix, decision: entry.decision, priority: entry.priority })) } }]);
    const decided = createPolicy({ rules: imported.rules, allowedCommandGlobs: ['*'] }).explain({ tool: 'run_command', target: { command }, args: { command } });
    const winner = decided.rules.find((entry) => entry.winner)?.decision;
    // No matching rule: the governed default asks, as Gemini CLI's default decision does.
    const ours: Kind = decided.decision.kind === 'deny' ? 'deny' : (winner ?? 'ask');
    expect(RANK[ours]).toBeGreaterThanOrEqual(RANK[geminiDecision(rules, command)]);
  };
  test('on any generated command, toolgate decides at least as strictly', () => {
    fc.assert(fc.property(fc.array(rule, { minLength: 1, maxLength: 6 }), fc.array(word, { minLength: 1, maxLength: 4 }), atLeastAsStrict), { numRuns: 400 });
  });

  // An ask matched by reading an argument as a command (`push` is a program toolgate does not know) outranked, by its
  // priority, the deny Gemini CLI matches on the command as spelled.
  test('an ask read past the spelling never outranks a deny of the command as spelled', () => {
    atLeastAsStrict(
      [
        { prefix: 'rm', decision: 'ask_user', priority: 1 },
        { prefix: 'push -rf', decision: 'deny', priority: 0 },
        { prefix: 'git', decision: 'allow', priority: 0 },
      ],
      ['push', '-rf', 'rm'],
    );
  });

  test.each<GeminiApprovalMode>(['default', 'autoEdit', 'yolo', 'plan'])('modes are read against the imported mode %s', (mode) => {
    const imported = importGeminiPolicies([{ tier: 'user', document: { rule: [{ toolName: 'write_file', decision: 'allow', priority: 1, modes: [mode] }, { toolName: 'write_file', decision: 'deny', priority: 0, modes: ['plan'] }] } }], { mode });
    expect(imported.rules.map((entry) => entry.decision)).toEqual(mode === 'plan' ? ['allow', 'deny'] : ['allow']);
  });
});
