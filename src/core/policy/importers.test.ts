import { describe, expect, test } from 'vitest';
import { parse } from 'smol-toml';
import { createPolicy } from './create-policy.js';
import { importClaudeSettings } from './import-claude-settings.js';
import { importGeminiPolicies } from './import-gemini-policies.js';

describe('importClaudeSettings: malformed and lossy input', () => {
  test('a file with a schema error is refused whole, naming the file and the field', () => {
    expect(() => importClaudeSettings([{ scope: 'project', settings: { permissions: { deny: [42, 'Bash(rm:*)'] } }, file: 'p.json' }])).toThrow(
      'Configuration "claude settings p.json" field "permissions.deny[0]" is not a string; the whole file was refused.',
    );
    expect(() => importClaudeSettings([{ scope: 'project', settings: { permissions: { allow: 'Bash' } }, file: 'p.json' }])).toThrow('field "permissions.allow" is not a list');
    expect(() => importClaudeSettings([{ scope: 'user', settings: null, file: 'u.json' }])).toThrow('field "(document)" is not an object');
  });

  test('what cannot be represented is left out or made stricter, with a warning naming it', () => {
    const imported = importClaudeSettings([
      { scope: 'project', settings: { permissions: { deny: ['Task(x)', 'WebSearch(cats)'], ask: ['Bash(git push:*)'], defaultMode: 'yolo' } }, file: 'p.json' },
      { scope: 'team' as never, settings: {}, file: 't.json' },
      { scope: 'user', settings: { permissions: { defaultMode: 'plan' } } },
    ]);
    expect(imported.rules.map((rule) => [rule.rule, rule.decision])).toEqual([
      ['WebSearch', 'deny'],
      ['Bash(git push:*)', 'ask'],
    ]);
    expect(imported.mode).toBe('plan');
    expect(imported.warnings).toEqual([
      'p.json: rule "Task(x)" names a tool toolgate does not have: left out',
      'p.json: rule "WebSearch(cats)" has a specifier toolgate cannot read: the deny covers every WebSearch call (stricter)',
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
  test.each([
    ['toolName = "run_shell_command"\ndecision = "maybe"\npriority = 1', 'field "decision" must be allow, deny or ask_user'],
    ['toolName = "run_shell_command"\ndecision = "allow"\npriority = 5000', 'field "priority" must be within 0–999'],
    ['toolName = "run_shell_command"\ndecision = "allow"', 'field "priority" is required'],
    ['toolName = "run_shell_command"\ndecision = "allow"\npriority = 1.5', 'field "priority" must be an integer'],
    ['decision = "deny"\npriority = 1', 'field "toolName" is required'],
    ['toolName = 7\ndecision = "deny"\npriority = 1', 'field "toolName" must be a string or an array of strings'],
    ['toolName = "web_fetch"\nargsPattern = "("\ndecision = "deny"\npriority = 1', 'is not a valid, safe regular expression'],
    ['toolName = "run_shell_command"\ncommandPrefix = "git log"\nargsPattern = "x"\ndecision = "deny"\npriority = 1', 'field "argsPattern" cannot be combined'],
  ])('a schema error refuses the whole file: %s', (rule, message) => {
    const document = parse(`[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 1\n\n[[rule]]\n${rule}\n`);
    expect(() => importGeminiPolicies([{ tier: 'user', document, file: '/h/.gemini/policies/p.toml' }])).toThrow(message);
    expect(() => importGeminiPolicies([{ tier: 'user', document, file: '/h/.gemini/policies/p.toml' }])).toThrow(/gemini policy|rule pattern/);
  });

  test('a rule without toolName never becomes a rule for every tool; the error names file, rule and field', () => {
    expect(() => importGeminiPolicies([{ tier: 'admin', document: { rule: [{ decision: 'allow', priority: 1 }] }, file: 'a.toml' }])).toThrow(
      'Configuration "gemini policy a.toml" rule #1 field "toolName" is required; the whole file was refused.',
    );
  });

  test('tiers become priority bands; an MCP server wildcard maps to the server', () => {
    const imported = importGeminiPolicies([{ tier: 'admin', document: { rule: [{ toolName: '*', decision: 'deny', priority: 1 }, { toolName: 'mcp_github_*', decision: 'allow', priority: 2 }] } }]);
    expect(imported.rules.map((rule) => [rule.tool, rule.source, rule.priority])).toEqual([
      ['*', 'managed', 5001],
      ['mcp__github', 'managed', 5002],
    ]);
  });
});

describe('importClaudeSettings: a workspace-relative path rule stays in the workspace', () => {
  const policy = (decision: 'allow' | 'deny', rules: string[]) =>
    createPolicy({ rules: importClaudeSettings([{ scope: 'project', settings: { permissions: { [decision]: rules } }, file: 'p.json' }]).rules, home: '/home/ada', scope: { tier: 'full', roots: ['/work/app'] } });
  const winner = (snapshot: ReturnType<typeof policy>, tool: string, path: string) => snapshot.explain({ tool, target: { path } }).rules.find((rule) => rule.winner)?.decision;

  test.each(['Edit(/**)', 'Edit(./**)', 'Edit(**)', 'Edit(notes.md)', 'Edit(**/*.md)'])('an allow %s covers the workspace and nothing outside it', (rule) => {
    const snapshot = policy('allow', [rule]);
    expect(winner(snapshot, 'write_file', '/work/app/notes.md')).toBe('allow');
    expect(winner(snapshot, 'write_file', 'notes.md')).toBe('allow');
    for (const outside of ['/etc/notes.md', '/home/ada/notes.md', '/work/other/notes.md']) expect(winner(snapshot, 'write_file', outside), outside).toBeUndefined();
  });

  test('a deny by a bare name still covers that name outside the workspace, and an absolute or home allow reaches its own place', () => {
    expect(winner(policy('deny', ['Read(.env)']), 'read_file', '/etc/app/.env')).toBe('deny');
    expect(winner(policy('allow', ['Edit(//etc/app/**)']), 'write_file', '/etc/app/x.conf')).toBe('allow');
    expect(winner(policy('allow', ['Read(~/notes/**)']), 'read_file', '/home/ada/notes/a.md')).toBe('allow');
  });

  test.each(['Read(//work/app/secret.txt)', 'Read(//work/app/**/secret.txt)', 'Edit(//work/app/secret.txt)'])('a deny %s of a workspace file by its absolute path covers it spelled from the workspace', (rule) => {
    const snapshot = policy('deny', [rule]);
    for (const path of ['secret.txt', './secret.txt', 'docs/../secret.txt', '/work/app/secret.txt']) expect(winner(snapshot, 'write_file', path), path).toBe('deny');
    expect(winner(snapshot, 'write_file', 'other.txt')).toBeUndefined();
  });

  test('a deny of a home path covers a workspace inside home spelled from the workspace; an absolute allow still reaches only its spelling', () => {
    const home = createPolicy({ rules: importClaudeSettings([{ scope: 'project', settings: { permissions: { deny: ['Read(~/app/keys/**)'], allow: ['Edit(//home/ada/app/docs/**)'] } } }]).rules, home: '/home/ada', scope: { tier: 'full', roots: ['/home/ada/app'] } });
    expect(winner(home, 'read_file', 'keys/id')).toBe('deny');
    expect(winner(home, 'write_file', 'docs/a.md')).toBeUndefined();
  });
});

describe('importers: a rule that reads as one thing and matches another is refused', () => {
  test.each([
    ['Bash(rm\u200b:*)', '⟨U+200B⟩'],
    ['Bash(rm:*)\u202e', '⟨U+202E⟩'],
    ['Read(.env\u0000)', '⟨U+0000⟩'],
    ['Bash(git push\n:*)', '⟨U+000A⟩'],
    ['Read(\udb40\udc41.env)', '⟨U+E0041⟩'],
    ['Read(\ud800.env)', 'half of a surrogate pair'],
  ])('a Claude Code deny %j refuses the file', (rule, shown) => {
    expect(() => importClaudeSettings([{ scope: 'project', settings: { permissions: { deny: ['Read(ok)', rule] } }, file: 'p.json' }])).toThrow(`field "permissions.deny[1]" holds ${shown}`);
  });

  test.each([
    ['commandPrefix = "rm\\u200B"', 'commandPrefix', '⟨U+200B⟩'],
    ['commandPrefix = ["git status", "rm\\u2066"]', 'commandPrefix', '⟨U+2066⟩'],
    ['commandRegex = """rm\n"""', 'commandRegex', '⟨U+000A⟩'],
    ['denyMessage = "safe\\u202Eevil"', 'denyMessage', '⟨U+202E⟩'],
  ])('a Gemini CLI rule with %s refuses the file', (line, field, shown) => {
    const document = parse(`[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 1\n${line}\n`);
    expect(() => importGeminiPolicies([{ tier: 'workspace', document, file: 'g.toml' }])).toThrow(`rule #1 field "${field}" holds ${shown}`);
  });

  test('an ordinary rule, leading and trailing blanks included, still loads', () => {
    expect(importClaudeSettings([{ scope: 'project', settings: { permissions: { deny: [' Bash(rm:*) ', 'Read(café/**)'] } } }]).rules).toHaveLength(2);
  });
});

describe('importGeminiPolicies: anySession', () => {
  const document = parse(
    ['[[rule]]\ntoolName = "write_file"\ndecision = "deny"\nmodes = ["yolo"]\npriority = 1', '[[rule]]\ntoolName = "replace"\ndecision = "ask_user"\ninteractive = false\npriority = 1', '[[rule]]\ntoolName = "read_file"\ndecision = "allow"\nsubagent = "coder"\npriority = 1', '[[rule]]\ntoolName = "glob"\ndecision = "allow"\npriority = 1'].join('\n\n'),
  );

  test('a deny or ask with a session condition applies in every session, an allow with one is left out, each said', () => {
    const imported = importGeminiPolicies([{ tier: 'workspace', document, file: 'g.toml' }], { anySession: true });
    expect(imported.rules.map((rule) => [rule.tool, rule.decision])).toEqual([
      ['write_file', 'deny'],
      ['edit_file', 'ask'],
      ['list_directory', 'allow'],
    ]);
    expect(imported.warnings).toEqual([
      'g.toml: rule #1 applies only in modes yolo, and the session a gateway governs is not fixed: the deny applies in every session (stricter)',
      'g.toml: rule #2 applies only to non-interactive sessions, and the session a gateway governs is not fixed: the ask applies in every session (stricter)',
      'g.toml: rule #3 applies only to the subagent "coder", and the session a gateway governs is not fixed: left out (stricter)',
    ]);
  });

  test('without it, the rules are read against the one session given, as before', () => {
    expect(importGeminiPolicies([{ tier: 'workspace', document, file: 'g.toml' }], { mode: 'yolo', interactive: false, subagent: 'coder' }).rules).toHaveLength(4);
    expect(importGeminiPolicies([{ tier: 'workspace', document, file: 'g.toml' }]).rules.map((rule) => rule.tool)).toEqual(['list_directory']);
  });
});

describe('importGeminiPolicies: a shell rule reads the command a wrapper runs', () => {
  const policy = (toml: string) => createPolicy({ rules: importGeminiPolicies([{ tier: 'workspace', document: parse(toml), file: 'g.toml' }]).rules, allowedCommandGlobs: ['*'] });
  const winner = (snapshot: ReturnType<typeof policy>, command: string[]) => snapshot.explain({ tool: 'run_command', target: { command } }).rules.find((rule) => rule.winner)?.decision;

  test.each([
    [['timeout', '5', 'rm', 'x']],
    [['env', 'rm', 'x']],
    [['nice', 'nohup', 'rm', '-rf', 'x']],
  ])('a deny of the prefix rm covers %j', (command) => {
    expect(winner(policy('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 1\n'), command)).toBe('deny');
  });

  test('a regex ask covers git push with global options, and a command run through a wrapper', () => {
    expect(winner(policy('[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "git push.*"\ndecision = "ask_user"\npriority = 1\n'), ['git', '-C', '.', 'push'])).toBe('ask');
    expect(winner(policy('[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "curl .*"\ndecision = "ask_user"\npriority = 1\n'), ['env', 'curl', 'https://x.test'])).toBe('ask');
  });

  test('an allow never approves a command run through a wrapper: what it runs is not what the rule names', () => {
    const snapshot = policy('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "timeout"\ndecision = "allow"\npriority = 1\n');
    expect(winner(snapshot, ['timeout', '5', 'rm', '-rf', 'x'])).toBeUndefined();
    expect(winner(policy('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "ls"\ndecision = "allow"\npriority = 1\n'), ['ls', '-la'])).toBe('allow');
  });
});

describe('importGeminiPolicies: a pattern is matched in time proportional to the command', () => {
  const imported = (body: string) => importGeminiPolicies([{ tier: 'workspace', document: parse(`[[rule]]\ntoolName = "run_shell_command"\n${body}\npriority = 1\n`), file: 'g.toml' }]);
  const decide = (body: string, command: string[]) =>
    createPolicy({ rules: imported(body).rules, allowedCommandGlobs: ['*'] }).explain({ tool: 'run_command', target: { command } }).rules.find((rule) => rule.winner)?.decision;

  test('a pattern that backtracks for ever under a regular expression engine is decided at once, with its meaning', () => {
    const started = performance.now();
    expect(decide('argsPattern = "(a|a)*X"\ndecision = "deny"', ['echo', 'a'.repeat(64)])).toBeUndefined();
    expect(decide('commandRegex = "(\\\\w|\\\\d)*X"\ndecision = "ask_user"', ['echo', '1'.repeat(64)])).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(decide('argsPattern = "(a|a)*X"\ndecision = "deny"', ['echo', 'aaX'])).toBe('deny');
  });

  test.each([
    ['a back-reference', 'argsPattern = "(rm) \\\\1"'],
    ['a lookbehind', 'commandRegex = "(?<=git )push"'],
  ])('a deny with %s, which has no automaton, covers every shell call; an allow is left out', (_what, pattern) => {
    const deny = imported(`${pattern}\ndecision = "deny"`);
    expect(deny.rules.map((rule) => [rule.tool, rule.match])).toEqual([['run_command', undefined]]);
    expect(deny.warnings[0]).toContain('cannot match in time proportional to the command');
    expect(imported(`${pattern}\ndecision = "allow"`).rules).toEqual([]);
  });
});

describe('importClaudeSettings: a deny is never silently lost to its spelling', () => {
  const importDeny = (rule: string) => importClaudeSettings([{ scope: 'project', settings: { permissions: { deny: [rule] } }, file: 'p.json' }]);

  test.each([
    ['bash(rm:*)', 'Bash(rm:*)', 'run_command', { command: 'rm -rf x' }],
    ['BASH(rm:*)', 'Bash(rm:*)', 'run_command', { command: 'rm -rf x' }],
    ['read(.env)', 'Read(.env)', 'read_file', { path: '.env' }],
  ])('a deny %j, its tool spelt in another case, is read as %j and denies', (text, rule, tool, target) => {
    const imported = importDeny(text);
    expect(imported.rules.map((entry) => entry.rule)).toEqual([rule]);
    expect(imported.warnings[0]).toContain('in another case');
    expect(createPolicy({ rules: imported.rules, allowedCommandGlobs: ['*'] }).explain({ tool, target }).decision.kind).toBe('deny');
  });

  test.each(['Bаsh(rm:*)', 'Read (.env)', 'mcp__evil.srv__x'])('a deny %j whose tool cannot be told refuses the file (it used to be left out "stricter")', (text) => {
    expect(() => importDeny(text)).toThrow('is a deny whose tool toolgate cannot tell; the whole file was refused');
  });

  test('an allow spelt so is still left out, and a deny of a tool toolgate does not have too', () => {
    expect(importClaudeSettings([{ scope: 'project', settings: { permissions: { allow: ['bash(ls:*)', 'Bаsh(ls:*)'] } } }]).rules).toEqual([]);
    expect(importDeny('Task(x)').rules).toEqual([]);
  });
});
