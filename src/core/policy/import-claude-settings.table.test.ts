import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createPolicy } from './create-policy.js';
import { importClaudeSettings, type ClaudeSettingsScope } from './import-claude-settings.js';

// Each case cites the section of Claude Code's "Configure permissions" documentation it reproduces.
const WILDCARDS = 'Configure permissions › Permission rule syntax › Wildcard patterns';
const BASH = 'Configure permissions › Tool-specific permission rules › Bash';
const READ_EDIT = 'Configure permissions › Tool-specific permission rules › Read and Edit';
const WEBFETCH = 'Configure permissions › Tool-specific permission rules › WebFetch';
const MCP = 'Configure permissions › Tool-specific permission rules › MCP';
const ORDER = 'Configure permissions › Manage permissions (deny, then ask, then allow)';

const HOME = '/home/ada';
const SETTINGS = {
  permissions: {
    allow: ['Bash(ls*)', 'Bash(git status *)', 'Bash(npm run test:*)', 'Bash(git * main)', 'Bash(make)', 'Read(src/**)', 'Read(/notes/**)', 'Edit(docs/**)', 'WebFetch(domain:example.*)', 'mcp__github__*', '*', 'Bash(timeout *)'],
    ask: ['Bash(git push *)', 'mcp__jira'],
    deny: ['Bash(rm *)', 'Read(.env)', 'Read(~/.ssh/**)', 'Read(//etc/shadow)', 'WebFetch(domain:evil.*)', 'Bash(curl:*)', 'mcp__*__delete*'],
  },
};

type Kind = 'allow' | 'ask' | 'deny' | 'none';
type Case = readonly [name: string, tool: string, target: Record<string, unknown>, expected: Kind, source: string];
const bash = (command: string | string[], expected: Kind, source = WILDCARDS): Case => [`Bash ${JSON.stringify(command)}`, 'run_command', { command }, expected, source];
const file = (tool: string, path: string, expected: Kind, source = READ_EDIT): Case => [`${tool} ${path}`, tool, { path }, expected, source];

const CASES: Case[] = [
  // `ls*` matches across the word boundary; `ls *` would need the space.
  ...['ls', 'lsof', 'ls -la', 'lsblk', 'ls src/a b'].map((command) => bash(command, 'allow')),
  ...['l', 'xls', 'cat ls', 'echo ls', 'sl'].map((command) => bash(command, 'none')),
  ...['ls -R /', 'lsattr x', 'ls --color=never'].map((command) => bash(command, 'allow')),
  // `git status *`: the final ` *` is optional and needs a space.
  ...['git status', 'git status --short', 'git status -s -b'].map((command) => bash(command, 'allow')),
  ...['git statusx', 'git stat'].map((command) => bash(command, 'none')),
  // `:*` is a prefix at a word boundary.
  ...['npm run test:unit x'].map((command) => bash(command, 'none')),
  ...['npm run test', 'npm run test -- --watch', 'npm run test --coverage', 'npm run test a b'].map((command) => bash(command, 'allow')),
  ...['npm run testx', 'npm run tests', 'npm run'].map((command) => bash(command, 'none')),
  // `*` in the middle matches any run of words.
  ...['git checkout main', 'git merge --no-ff main', 'git log origin main'].map((command) => bash(command, 'allow')),
  ...['git checkout mainx', 'git main'].map((command) => bash(command, 'none')),
  // An exact rule is that command only.
  bash('make', 'allow', BASH),
  ...['make all', 'make -j4'].map((command) => bash(command, 'none', BASH)),
  // Prefix and wildcard allows never approve an exec wrapper (exec-wrappers.ts).
  ...['timeout 5 ls', 'timeout 1 make', 'timeout 2 git status', 'timeout 9 npm run test'].map((command) => bash(command, 'none', BASH)),
  // Denies see through wrappers and git's global options.
  ...['rm -rf /', 'rm x', 'rm', 'nice rm -rf x', 'timeout 5 rm -rf x', 'nohup rm a', 'env rm x', 'stdbuf -o0 rm x', 'nice timeout 5 nohup rm x'].map((command) => bash(command, 'deny', BASH)),
  ...['rmdir x', 'rmx'].map((command) => bash(command, 'none', BASH)),
  ...['curl https://x', 'curl', 'timeout 3 curl -s x'].map((command) => bash(command, 'deny', BASH)),
  bash('curlie x', 'none', BASH),
  ...['git push origin dev', 'git push origin feature', 'git push --tags'].map((command) => bash(command, 'ask', ORDER)),
  // `git * main` also takes a push to main, but the ask comes first.
  bash('git push origin main --force', 'ask', ORDER),
  // deny, then ask, then allow: a matching ask beats a more specific allow.
  ...['git push origin main', 'git push', 'git push --force'].map((command) => bash(command, 'ask', ORDER)),
  // An argv array is shown shell-quoted: an element with a space is one word.
  bash(['git', 'status', '&&', 'rm'], 'allow', BASH),
  bash(['ls', 'a b'], 'allow', BASH),
  bash(['git', 'checkout', 'main'], 'allow', WILDCARDS),
  bash(['rm', '-rf', 'a b'], 'deny', BASH),
  // Read and Edit: gitignore patterns; a bare name at any depth, `src/**` into nested folders.
  ...['src/a.ts', 'src/deep/er/b.ts', 'src/x'].map((path) => file('read_file', path, 'allow')),
  ...['lib/a.ts', 'srcx/a.ts'].map((path) => file('read_file', path, 'none')),
  ...['.env', 'config/.env', 'a/b/c/.env'].map((path) => file('read_file', path, 'deny')),
  // A Read deny also refuses Edit and Write on the same path.
  ...['.env', 'config/.env'].flatMap((path) => [file('edit_file', path, 'deny'), file('write_file', path, 'deny')]),
  ...['docs/a.md', 'docs/deep/b.md'].flatMap((path) => [file('edit_file', path, 'allow'), file('write_file', path, 'allow')]),
  file('edit_file', 'src/a.ts', 'none'),
  // `~/` is home, `//` the filesystem root, `/path` in user settings the settings file's root (~/.claude/).
  ...[`${HOME}/.ssh/id_ed25519`, `${HOME}/.ssh/config`].map((path) => file('read_file', path, 'deny')),
  file('read_file', '/etc/shadow', 'deny'),
  file('read_file', '/etc/hosts', 'none'),
  file('read_file', `${HOME}/.claude/notes/a.md`, 'allow'),
  file('read_file', 'notes/a.md', 'none'),
  // WebFetch: a domain wildcard label cannot be named: the allow is left out, the deny covers every fetch.
  ['WebFetch example.com', 'http_request', { url: 'https://example.com/' }, 'deny', WEBFETCH],
  ['WebFetch evil.io', 'http_request', { url: 'https://evil.io/' }, 'deny', WEBFETCH],
  // MCP: mcp__server__* is the server; a bare "*" allow is ignored.
  ['mcp github create', 'mcp_github_create_issue', { server: 'github' }, 'allow', MCP],
  ['mcp github list', 'mcp_github_list', { server: 'github' }, 'allow', MCP],
  ['mcp jira any', 'mcp_jira_get', { server: 'jira' }, 'ask', MCP],
  ['mcp other', 'mcp_other_get', { server: 'other' }, 'none', MCP],
  ['a tool no rule names', 'web_search', { query: 'cats' }, 'none', MCP],
];

describe('Claude Code settings import: decision table', () => {
  const imported = importClaudeSettings([{ scope: 'user', settings: SETTINGS, file: `${HOME}/.claude/settings.json` }], { home: HOME });
  const policy = createPolicy({ rules: imported.rules, home: HOME, allowedCommandGlobs: ['*'], allowedDomains: ['example.com', 'evil.io'], mcpServers: ['github', 'jira', 'other'], scope: { tier: 'full', roots: ['/w'] } });

  test('holds at least 100 cases', () => {
    expect(CASES.length + MODE_CASES.length).toBeGreaterThanOrEqual(100);
  });

  test.each(CASES)('%s → %s', (_name, tool, target, expected, source) => {
    expect(source.length).toBeGreaterThan(0);
    const winner = policy.explain({ tool, target, args: target }).rules.find((rule) => rule.winner);
    expect(winner?.decision ?? 'none').toBe(expected);
  });

  test('every stricter or left-out mapping is a warning', () => {
    expect(imported.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('rule "*" was ignored'),
        expect.stringContaining('rule "WebFetch(domain:example.*)" allows a domain wildcard'),
        expect.stringContaining('rule "WebFetch(domain:evil.*)" denies a domain wildcard'),
      ]),
    );
  });
});

// defaultMode: Claude Code's `default` asks only where no rule allows (Configure permissions › Permission modes).
const MODE_CASES = [
  ['default', 'auto'],
  ['acceptEdits', 'accept-edits'],
  ['plan', 'plan'],
  ['bypassPermissions', 'auto'],
  ['dontAsk', 'plan'],
  ['auto', 'auto'],
] as const;
describe('Claude Code settings import: modes', () => {
  test.each(MODE_CASES)('defaultMode %s → %s', (claude, toolgate) => {
    expect(importClaudeSettings([{ scope: 'project', settings: { permissions: { defaultMode: claude } } }]).mode).toBe(toolgate);
  });
  test.each<ClaudeSettingsScope>(['managed', 'local', 'project', 'user'])('a deny in %s beats an allow in every scope', (scope) => {
    const imported = importClaudeSettings([
      { scope, settings: { permissions: { deny: ['Bash(rm:*)'] } } },
      { scope: 'user', settings: { permissions: { allow: ['Bash(rm:*)'] } } },
      { scope: 'managed', settings: { permissions: { allow: ['Bash(rm -rf:*)'] } } },
    ]);
    expect(createPolicy({ rules: imported.rules, allowedCommandGlobs: ['*'] }).explain({ tool: 'run_command', target: { command: 'rm -rf x' } }).decision.kind).toBe('deny');
  });
});

/** Claude Code's decision on one command: any deny, else any ask, else any allow; patterns as documented. */
function claudeDecision(rules: Record<'allow' | 'ask' | 'deny', string[]>, command: string): Kind {
  const matches = (pattern: string): boolean => {
    if (pattern.endsWith(':*')) return command === pattern.slice(0, -2) || command.startsWith(`${pattern.slice(0, -2)} `);
    const source = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('.*');
    return new RegExp(`^${source}$`).test(command) || (pattern.endsWith(' *') && command === pattern.slice(0, -2));
  };
  for (const decision of ['deny', 'ask', 'allow'] as const) if (rules[decision].some(matches)) return decision;
  return 'ask';
}

describe('Claude Code settings import: never looser than Claude Code', () => {
  const word = fc.constantFrom('git', 'status', 'push', 'rm', '-rf', 'ls', 'lsof', 'npm', 'x', 'timeout', '5');
  const pattern = fc.tuple(fc.array(fc.oneof(word, fc.constant('*'), fc.constant('l*')), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([words, prefix]) => `${words.join(' ')}${prefix ? ':*' : ''}`);
  const list = fc.array(pattern, { maxLength: 3 });
  test('on any generated command, toolgate decides at least as strictly', () => {
    const RANK: Record<Kind, number> = { allow: 0, ask: 1, none: 1, deny: 2 };
    fc.assert(
      fc.property(fc.record({ allow: list, ask: list, deny: list }), fc.array(word, { minLength: 1, maxLength: 4 }), (rules, words) => {
        const command = words.join(' ');
        const settings = { permissions: { allow: rules.allow.map((entry) => `Bash(${entry})`), ask: rules.ask.map((entry) => `Bash(${entry})`), deny: rules.deny.map((entry) => `Bash(${entry})`) } };
        const imported = importClaudeSettings([{ scope: 'project', settings }]);
        const decided = createPolicy({ rules: imported.rules, allowedCommandGlobs: ['*'] }).explain({ tool: 'run_command', target: { command } });
        const winner = decided.rules.find((entry) => entry.winner)?.decision;
        const ours: Kind = decided.decision.kind === 'deny' ? 'deny' : (winner ?? 'ask');
        expect(RANK[ours]).toBeGreaterThanOrEqual(RANK[claudeDecision(rules, command)]);
      }),
      { numRuns: 400 },
    );
  });
});

// Calls Claude Code denies or asks for where the importer once let them run. Each row expects Claude Code's decision
// or a stricter one.
const AT_ANY_DEPTH = 'Configure permissions › Read and Edit (a deny or ask of secrets/** matches a folder secrets at any depth)';
const NOT_CONSULTED = 'Configure permissions › Read and Edit (a path rule for Write, NotebookEdit, Glob or MultiEdit is never consulted)';
const TOOL_GLOBS = 'Configure permissions › Permission rule syntax (deny and ask rules take a glob in the tool-name position: mcp__github__get_* matches its get_ tools)';
const UNCONSULTED_ALLOWS = ['Write(docs/**)', 'MultiEdit(notes/**)', 'NotebookEdit(nb/**)', 'Glob(lists/**)', 'Write(*)'];
type StricterCase = readonly [name: string, tool: string, target: Record<string, unknown>, atLeast: 'ask' | 'deny', source: string];
const STRICTER_SETTINGS = {
  permissions: {
    allow: ['Read(**)', 'Read(src/**)', 'Edit(src/**)', ...UNCONSULTED_ALLOWS, 'mcp__github', 'mcp__jira'],
    ask: ['Read(drafts/**)', 'Write(logs/**)', 'mcp__jira__get_*'],
    deny: ['Read(secrets/**)', 'Edit(build/**)', 'Read(./top/**)', 'Read(config/keys/**)', 'NotebookEdit(locked/**)', 'mcp__github__delete_*', 'mcp__github__force-*', 'mcp__github__*_admin'],
  },
};
const STRICTER_CASES: StricterCase[] = [
  ['a deny of secrets/** at the root', 'read_file', { path: 'secrets/key.txt' }, 'deny', AT_ANY_DEPTH],
  ['a deny of secrets/** in a nested copy', 'read_file', { path: 'vendor/pkg/secrets/key.txt' }, 'deny', AT_ANY_DEPTH],
  ['a deny of secrets/** outside the workspace', 'read_file', { path: '/srv/app/secrets/key.txt' }, 'deny', AT_ANY_DEPTH],
  ['an ask of drafts/** in a nested copy', 'read_file', { path: 'a/drafts/x.md' }, 'ask', AT_ANY_DEPTH],
  ['an Edit deny of build/** in a nested copy', 'write_file', { path: 'pkg/build/out.js' }, 'deny', AT_ANY_DEPTH],
  ['a deny of config/keys/** in a nested copy', 'read_file', { path: 'app/config/keys/k.pem' }, 'deny', AT_ANY_DEPTH],
  ['a Write(docs/**) allow approves no write', 'write_file', { path: 'docs/a.md' }, 'ask', NOT_CONSULTED],
  ['a Write(docs/**) allow approves no edit', 'edit_file', { path: 'docs/a.md' }, 'ask', NOT_CONSULTED],
  ['a MultiEdit(notes/**) allow approves no edit', 'edit_file', { path: 'notes/a.md' }, 'ask', NOT_CONSULTED],
  ['a NotebookEdit(nb/**) allow approves no write', 'write_file', { path: 'nb/a.ipynb' }, 'ask', NOT_CONSULTED],
  ['a Write(*) allow approves no write', 'write_file', { path: 'a.txt' }, 'ask', NOT_CONSULTED],
  ['a Write(logs/**) ask still asks', 'write_file', { path: 'logs/a.log' }, 'ask', NOT_CONSULTED],
  ['a NotebookEdit(locked/**) deny still refuses', 'write_file', { path: 'locked/a.ipynb' }, 'deny', NOT_CONSULTED],
  ['a deny of mcp__github__delete_*', 'mcp_github_delete_repo', { server: 'github' }, 'deny', TOOL_GLOBS],
  ['a deny of mcp__github__delete_*, through mcp_call', 'mcp_call', { server: 'github', tool: 'delete_repo', arguments: {} }, 'deny', TOOL_GLOBS],
  ['a deny of mcp__github__force-* (folded)', 'mcp_github_force_push', { server: 'github' }, 'deny', TOOL_GLOBS],
  ['a deny of mcp__github__*_admin', 'mcp_github_repo_admin', { server: 'github' }, 'deny', TOOL_GLOBS],
  ['an ask of mcp__jira__get_*', 'mcp_jira_get_issue', { server: 'jira' }, 'ask', TOOL_GLOBS],
];

const RANK = { allow: 0, ask: 1, deny: 2 } as const;
type Decided = keyof typeof RANK;

/** One project settings file imported, and how a call fares under it: a read with no rule deciding runs, any other governed call goes to the approval regime, which asks. */
function importedDecider(settings: object): { imported: ReturnType<typeof importClaudeSettings>; decide: (tool: string, target: Record<string, unknown>) => Decided } {
  const imported = importClaudeSettings([{ scope: 'project', settings, file: '/w/.claude/settings.json' }], { home: HOME });
  const policy = createPolicy({ rules: imported.rules, home: HOME, allowedCommandGlobs: ['*'], mcpServers: ['github', 'jira'], scope: { tier: 'full', roots: ['/w'] } });
  const decide = (tool: string, target: Record<string, unknown>): Decided => {
    const explained = policy.explain({ tool, target, args: target });
    const winner = explained.rules.find((rule) => rule.winner)?.decision;
    return explained.decision.kind === 'deny' ? 'deny' : (winner ?? (tool === 'read_file' || tool === 'list_directory' ? 'allow' : 'ask'));
  };
  return { imported, decide };
}

function expectAtLeast(decide: (tool: string, target: Record<string, unknown>) => Decided, cases: readonly StricterCase[]): void {
  test.each(cases)('%s (%s)', (_name, tool, target, atLeast, source) => {
    expect(source.length).toBeGreaterThan(0);
    const kind = decide(tool, target);
    expect(RANK[kind], `${tool} ${JSON.stringify(target)} decided ${kind}, Claude Code: ${atLeast}`).toBeGreaterThanOrEqual(RANK[atLeast]);
  });
}

describe('Claude Code settings import: never looser than Claude Code on what it denies or asks', () => {
  const { imported, decide } = importedDecider(STRICTER_SETTINGS);
  const policy = createPolicy({ rules: imported.rules, home: HOME, scope: { tier: 'full', roots: ['/w'] } });
  expectAtLeast(decide, STRICTER_CASES);

  test('an allow of a relative folder, and a deny anchored by ./, stay where they are written', () => {
    const matched = (path: string): string[] => policy.explain({ tool: 'read_file', target: { path }, args: { path } }).rules.map((rule) => rule.rule);
    expect(matched('src/a.ts')).toContain('Read(src/**)');
    expect(matched('lib/src/a.ts')).not.toContain('Read(src/**)');
    expect(matched('top/x')).toContain('Read(./top/**)');
    expect(matched('a/top/x')).not.toContain('Read(./top/**)');
  });

  test('a path allow of Write, MultiEdit, NotebookEdit or Glob is left out with a warning; an Edit allow is kept', () => {
    const allows = imported.rules.filter((rule) => rule.decision === 'allow').map((rule) => rule.rule);
    expect(allows).toEqual(['Read(**)', 'Read(src/**)', 'Edit(src/**)', 'mcp__github', 'mcp__jira']);
    expect(imported.warnings).toEqual(expect.arrayContaining(UNCONSULTED_ALLOWS.map((rule) => expect.stringContaining(`rule ${JSON.stringify(rule)} is a path allow Claude Code never consults`))));
    expect(decide('write_file', { path: 'src/a.ts' })).toBe('allow');
  });

  test('a tool-name glob covers only the tools it matches', () => {
    for (const [tool, server] of [['mcp_github_list_issues', 'github'], ['mcp_github_deleter', 'github'], ['mcp_jira_create_issue', 'jira']]) {
      expect(decide(tool as string, { server }), tool).toBe('allow');
    }
  });

  test('a bare Write allow is kept', () => {
    expect(importClaudeSettings([{ scope: 'project', settings: { permissions: { allow: ['Write'] } } }]).rules.map((rule) => rule.rule)).toEqual(['Write']);
  });
});

// Deny and ask rules with a glob in the tool-name position, over Claude Code's own tools and the MCP tools.
const GLOB_SETTINGS = {
  permissions: {
    allow: ['Read(**)', 'mcp__github', 'mcp__jira', 'Web*'],
    ask: ['Gre*(src/**)'],
    deny: ['B*', 'Web*', 'mcp__*__drop*', '*delete*', 'Note*(x/**)'],
  },
};
const GLOB_CASES: StricterCase[] = [
  ['B* denies Bash', 'run_command', { command: 'ls' }, 'deny', TOOL_GLOBS],
  ['B* denies the git tools Bash covers', 'git_status', {}, 'deny', TOOL_GLOBS],
  ['Web* denies WebFetch', 'http_request', { url: 'https://example.com/' }, 'deny', TOOL_GLOBS],
  ['Web* denies WebSearch', 'web_search', { query: 'cats' }, 'deny', TOOL_GLOBS],
  ['mcp__*__drop* denies a drop tool of any server', 'mcp_jira_drop_project', { server: 'jira' }, 'deny', TOOL_GLOBS],
  ['*delete* denies an MCP tool whose name holds delete', 'mcp_github_delete_repo', { server: 'github' }, 'deny', TOOL_GLOBS],
  ['Note*(x/**) denies every NotebookEdit call (stricter)', 'write_file', { path: 'elsewhere/a.ipynb' }, 'deny', TOOL_GLOBS],
  ['Gre*(src/**) asks for every Grep call (stricter)', 'list_directory', { path: 'lib' }, 'ask', TOOL_GLOBS],
];

describe('Claude Code settings import: a deny or ask whose tool name is a glob', () => {
  const { imported, decide } = importedDecider(GLOB_SETTINGS);
  expectAtLeast(decide, GLOB_CASES);

  test('it covers only the tools it matches', () => {
    expect(decide('read_media', { path: 'a.png' })).toBe('allow');
    expect(decide('mcp_github_list_issues', { server: 'github' })).toBe('allow');
  });

  test('a specifier on it widens to every call of its tools, and an allow of one is left out, each with a warning', () => {
    expect(imported.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('rule "Note*(x/**)" has a specifier toolgate cannot read: the deny covers every Note* call (stricter)'),
        expect.stringContaining('rule "Gre*(src/**)" has a specifier toolgate cannot read: the ask covers every Gre* call (stricter)'),
        expect.stringContaining('rule "Web*" names a tool toolgate does not have: left out'),
      ]),
    );
  });
});

// Read and Edit denies and asks over the file commands Claude Code recognizes in Bash, named by their arguments.
const FILE_COMMANDS = 'Configure permissions › Read and Edit (Read and Edit deny rules apply to the built-in file tools and to file commands Claude Code recognizes in Bash, such as cat, head, tail, and sed)';
const FILE_COMMAND_SETTINGS = {
  permissions: {
    allow: ['Read(**)', 'Bash(cat *)', 'Bash(head *)', 'Bash(echo *)', 'Bash(npm *)'],
    ask: ['Read(drafts/**)'],
    deny: ['Read(credentials.txt)', 'Edit(locked/**)', 'Read(//etc/shadow)'],
  },
};
const FILE_COMMAND_CASES: StricterCase[] = [
  ...['cat credentials.txt', 'head -n 1 credentials.txt', 'tail credentials.txt', 'sed -n 1p credentials.txt', 'grep -r x credentials.txt', 'cp credentials.txt out.txt', 'less config/credentials.txt'].map(
    (command): StricterCase => [`${command} is refused`, 'run_command', { command }, 'deny', FILE_COMMANDS],
  ),
  ['cat ./sub/../credentials.txt is refused', 'run_command', { command: 'cat ./sub/../credentials.txt' }, 'deny', FILE_COMMANDS],
  ['timeout 5 cat credentials.txt is refused, through its wrapper', 'run_command', { command: 'timeout 5 cat credentials.txt' }, 'deny', FILE_COMMANDS],
  ['cat /etc/shadow is refused', 'run_command', { command: 'cat /etc/shadow' }, 'deny', FILE_COMMANDS],
  ['an Edit deny refuses cp onto the file', 'run_command', { command: 'cp notes.txt locked/config.ini' }, 'deny', FILE_COMMANDS],
  ['a Read ask asks for cat of the file', 'run_command', { command: 'cat drafts/plan.md' }, 'ask', FILE_COMMANDS],
];

describe('Claude Code settings import: a Read or Edit deny or ask and a file command in Bash', () => {
  const { decide } = importedDecider(FILE_COMMAND_SETTINGS);
  expectAtLeast(decide, FILE_COMMAND_CASES);

  test('a file command naming another file still runs, and a command that is no file command is not read for paths', () => {
    expect(decide('run_command', { command: 'cat notes.txt' })).toBe('allow');
    expect(decide('run_command', { command: 'head -n 3 src/a.ts' })).toBe('allow');
    expect(decide('run_command', { command: 'echo credentials.txt' })).toBe('allow');
    expect(decide('run_command', { command: 'npm test credentials.txt' })).toBe('allow');
  });

  test('a Read deny or ask with no path reaches every file command; an Edit one keeps to the file tools', () => {
    const { decide: readNothing } = importedDecider({ permissions: { allow: ['Bash(cat *)', 'Bash(grep *)', 'Bash(echo *)'], deny: ['Read'] } });
    expect(readNothing('run_command', { command: 'cat notes.txt' })).toBe('deny');
    expect(readNothing('run_command', { command: 'grep -r x' })).toBe('deny');
    expect(readNothing('run_command', { command: 'echo notes.txt' })).toBe('allow');
    const { decide: askToRead } = importedDecider({ permissions: { allow: ['Bash(cat *)'], ask: ['Read(*)'] } });
    expect(askToRead('run_command', { command: 'cat notes.txt' })).toBe('ask');
    const { decide: editNothing } = importedDecider({ permissions: { allow: ['Bash(cat *)'], deny: ['Edit'] } });
    expect(editNothing('run_command', { command: 'cat notes.txt' })).toBe('allow');
    expect(editNothing('write_file', { path: 'notes.txt', content: 'x' })).toBe('deny');
  });

  test('a Read allow gains nothing from the arguments of a file command', () => {
    const { decide: readAllowOnly } = importedDecider({ permissions: { allow: ['Read(**)'] } });
    expect(readAllowOnly('run_command', { command: 'cat notes.txt' })).toBe('ask');
  });

  test('a toolgate rule that was not imported from Claude Code matches the command as before', () => {
    const native = createPolicy({
      rules: [
        { rule: 'Read(credentials.txt)', decision: 'deny', source: 'project' },
        { rule: 'Bash(cat *)', decision: 'allow', source: 'project' },
      ],
      allowedCommandGlobs: ['*'],
      scope: { tier: 'full', roots: ['/w'] },
    });
    const explained = native.explain({ tool: 'run_command', target: { command: 'cat credentials.txt' } });
    expect(explained.decision.kind).toBe('allow');
    expect(native.explain({ tool: 'read_file', target: { path: 'credentials.txt' } }).decision.kind).toBe('deny');
  });
});
