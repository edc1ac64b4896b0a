import { describe, expect, test } from 'vitest';
import { compileRule, matchExample, parseRuleString } from './compile-rule.js';
import { createPolicy } from './create-policy.js';
import { PolicyRuleError } from './policy-rule-error.js';
import { ConfigurationError } from '../errors/tool-errors.js';
import { callOf, toolView } from './__fixtures__/tool-views.js';

describe('Claude Code string form', () => {
  test.each([
    ['Bash(npm run test:*)', { command: 'npm run test:*' }],
    ['Bash(git status)', { command: 'git status' }],
    ['Read(./src/**)', { path: './src/**' }],
    ['Edit(./docs/**)', { path: './docs/**' }],
    ['Read(//etc/hosts)', { path: '/etc/hosts' }],
    ['WebFetch(domain:api.github.com)', { domain: 'api.github.com' }],
    ['run_command(argv:git log *)', { argv: ['git', 'log', '*'] }],
    ['mcp_github_create_issue(server:github)', { server: 'github' }],
  ])('%s', (text, match) => {
    expect(parseRuleString(text, 'r').match).toEqual(match);
  });

  test('a bare name covers the whole tool', () => {
    expect(parseRuleString('Bash', 'r')).toEqual({ tool: 'Bash' });
    expect(parseRuleString('Bash(*)', 'r')).toEqual({ tool: 'Bash' });
  });

  test.each(['Bash(', 'Web Fetch(x)', 'WebFetch(api.github.com)', 'WebSearch(cats)', 'run_command(git status)', 'Task(x)', 'mcp__github(x)'])('refuses %s with a typed error', (text) => {
    expect(() => compileRule({ rule: text, decision: 'allow', source: 'user' }, 0)).toThrow(PolicyRuleError);
  });

  test('Claude Code names map to toolgate names', () => {
    const bash = compileRule({ rule: 'Bash(ls)', decision: 'allow', source: 'user' }, 0);
    expect(bash.tools('run_command')).toBe(true);
    expect(bash.tools('read_file')).toBe(false);
    const edit = compileRule({ rule: 'Edit(./docs/**)', decision: 'allow', source: 'user' }, 0);
    expect(edit.tools('write_file')).toBe(true);
    const mcp = compileRule({ rule: 'mcp__github__create_issue', decision: 'deny', source: 'user' }, 0);
    expect(mcp.tools('mcp_github_create_issue')).toBe(true);
    expect(mcp.tools('mcp_github_delete_repo')).toBe(false);
    const server = compileRule({ rule: 'mcp__github', decision: 'deny', source: 'user' }, 0);
    expect(server.tools('mcp_github_delete_repo')).toBe(true);
    expect(server.tools('mcp_gitlab_x')).toBe(false);
  });

  test('a bracket class opened by ! is every character but those listed, as gitignore and Claude Code read it', () => {
    const rule = compileRule({ rule: 'Read(./secrets/[!_]*)', decision: 'deny', source: 'user' }, 0);
    const test = rule.match.kind === 'path' ? rule.match.test : () => false;
    expect(test('secrets/prod.key')).toBe(true);
    expect(test('secrets/_public.md')).toBe(false);
    // picomatch's default reading of `[!_]` is `!` or `_`: this name alone would be denied, and `prod.key` not.
    expect(test('secrets/!notes')).toBe(true);
    const posixClass = compileRule({ rule: 'Read(./keys/[[:digit:]]*)', decision: 'deny', source: 'user' }, 0);
    expect(posixClass.match.kind === 'path' && posixClass.match.test('keys/1.pem')).toBe(true);
    expect(posixClass.match.kind === 'path' && posixClass.match.test('keys/a.pem')).toBe(false);
  });
});

describe('object form and self-tests', () => {
  test('examples that pass load', () => {
    const rule = compileRule(
      { tool: 'run_command', decision: 'allow', source: 'project', match: { argv: ['npm', 'run', 'test', '*'] }, tests: { match: ['npm run test', 'npm run test -- --watch'], notMatch: ['npm run build', 'npm run test;rm'] } },
      0,
    );
    expect(rule.decision).toBe('allow');
  });

  test('a rule failing its own example refuses to load', () => {
    const load = (): unknown => compileRule({ id: 'docs', tool: 'write_file', decision: 'allow', source: 'project', match: { path: './docs/**' }, tests: { match: ['src/a.ts'] } }, 0);
    expect(load).toThrow(PolicyRuleError);
    try {
      load();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as PolicyRuleError).ruleId).toBe('docs');
      expect((error as PolicyRuleError).problem).toBe('rule_test_failed');
      expect((error as Error).message).not.toContain('src/a.ts');
    }
  });

  test('a rule matching its counter-example refuses to load, and so does the whole policy', () => {
    const rules = [{ tool: 'http_request', decision: 'allow' as const, source: 'user' as const, match: { domain: '*.github.com' }, tests: { notMatch: ['https://api.github.com/x'] } }];
    expect(() => createPolicy({ rules })).toThrow(PolicyRuleError);
  });

  test.each([
    [{ tool: '', decision: 'allow', source: 'user' }],
    [{ tool: 'run_command', decision: 'maybe', source: 'user' }],
    [{ tool: 'run_command', decision: 'allow', source: 'admin' }],
    [{ tool: 'run_command', decision: 'allow', source: 'user', match: { argv: [] } }],
    [{ tool: 'run_command', decision: 'allow', source: 'user', match: { argv: ['git', ''] } }],
    [{ tool: 'http_request', decision: 'allow', source: 'user', match: { domain: 'https://x.com' } }],
    [{ tool: 'http_request', decision: 'allow', source: 'user', match: { domain: 'a.*.com' } }],
    [{ tool: 'read_file', decision: 'allow', source: 'user', match: { path: '  ' } }],
    [{ tool: 'read_file', decision: 'allow', source: 'user', match: { argsPattern: '(' } }],
    // No automaton reads a back-reference, nor the `u` flag's own escapes as the `u` flag reads them.
    [{ tool: 'read_file', decision: 'deny', source: 'user', match: { argsPattern: '(env)\\1' } }],
    [{ tool: 'read_file', decision: 'deny', source: 'user', match: { argsPattern: '\\p{L}+' } }],
    [{ tool: 'read_file', decision: 'deny', source: 'user', match: { argsPattern: '\\u{1F600}' } }],
    [{ tool: 'read_file', decision: 'allow', source: 'user', match: { nothing: 1 } }],
    [{ tool: 'read_file', decision: 'allow', source: 'user', priority: Number.NaN }],
    [{ tool: 'NoSuchTool', decision: 'allow', source: 'user' }],
  ])('malformed rule %j is refused', (rule) => {
    expect(() => compileRule(rule as never, 0)).toThrow(PolicyRuleError);
  });

  test('an argsPattern that backtracks without end is matched in time proportional to the arguments', () => {
    // `(a|a)*X` costs a backtracking matcher 2^n steps on n `a`s: this test would not end.
    const rule = compileRule({ tool: 'read_file', decision: 'deny', source: 'project', match: { argsPattern: '(a|a)*X' } }, 0);
    expect(matchExample(rule.match, 'a'.repeat(5_000))).toBe(false);
    expect(matchExample(rule.match, `${'a'.repeat(5_000)}X`)).toBe(true);
    const policy = createPolicy({ rules: [{ tool: 'read_file', decision: 'deny', source: 'project', match: { argsPattern: '"path":"(a|a)*X' } }] });
    const decide = (path: string) => policy.decideArguments(callOf('read', { path }, { args: { path } })).kind;
    expect(decide('a'.repeat(5_000))).not.toBe('deny');
    expect(decide('aaX')).toBe('deny');
  });

  test('duplicate ids are refused', () => {
    expect(() => createPolicy({ rules: [{ id: 'a', tool: 'read_file', decision: 'allow', source: 'user' }, { id: 'a', tool: 'read_file', decision: 'deny', source: 'user' }] })).toThrow(ConfigurationError);
  });

  test('matchExample reads URLs and hosts for domain rules', () => {
    const rule = compileRule({ tool: 'http_request', decision: 'allow', source: 'user', match: { domain: 'API.github.com.' } }, 0);
    expect(matchExample(rule.match, 'https://api.github.com/x')).toBe(true);
    expect(matchExample(rule.match, 'api.github.com')).toBe(true);
    expect(matchExample(rule.match, 'http://api.github.com/x')).toBe(false);
  });
});

describe('precedence', () => {
  const input = (command: string) => callOf('command', { command });
  const base = { allowedCommandGlobs: ['*'] };

  test('highest priority wins; on a tie deny beats ask beats allow', () => {
    const policy = createPolicy({
      ...base,
      rules: [
        { rule: 'Bash(git push:*)', decision: 'allow', source: 'user', priority: 10 },
        { rule: 'Bash(git push:*)', decision: 'deny', source: 'user', priority: 5 },
        { rule: 'Bash(rm:*)', decision: 'allow', source: 'user' },
        { rule: 'Bash(rm:*)', decision: 'ask', source: 'project' },
        { rule: 'Bash(rm -rf:*)', decision: 'deny', source: 'session' },
      ],
    });
    expect(policy.decideArguments(input('git push origin')).kind).toBe('allow');
    expect(policy.decideArguments(input('rm a')).kind).toBe('ask');
    expect(policy.decideArguments(input('rm -rf /')).kind).toBe('deny');
  });

  test('git global options do not hide a subcommand from deny and ask rules, and never widen an allow', () => {
    const policy = createPolicy({
      ...base,
      rules: [
        { rule: 'Bash(git push:*)', decision: 'deny', source: 'project' },
        { rule: 'Bash(git commit:*)', decision: 'ask', source: 'project' },
        { rule: 'Bash(git status)', decision: 'allow', source: 'project' },
      ],
    });
    for (const command of ['git -C . push', 'git -C sub push origin main', 'git --no-pager push', 'git --git-dir .git --work-tree . push --force', 'git --git-dir=.git push']) {
      expect(policy.decideArguments(input(command)).kind, command).toBe('deny');
    }
    expect(policy.decideArguments(input('git -C . commit -m x')).kind).toBe('ask');
    // The allow names `git status` exactly: `git -C elsewhere status` is not it, so the tool default applies.
    expect(policy.decideArguments(input('git status')).matched.map((rule) => rule.decision)).toEqual(['allow']);
    expect(policy.decideArguments(input('git -C elsewhere status')).matched).toEqual([]);
    // A value that looks like a subcommand is a value: `git -C push status` is a status.
    expect(policy.decideArguments(input('git -C push status')).kind).not.toBe('deny');
  });

  test('managed rules sit in a band above every other source', () => {
    const policy = createPolicy({
      ...base,
      rules: [
        { rule: 'Bash(curl:*)', decision: 'deny', source: 'managed', priority: -100 },
        { rule: 'Bash(curl:*)', decision: 'allow', source: 'cli', priority: 1_000_000 },
      ],
    });
    const decision = policy.decideArguments(input('curl https://x'));
    expect(decision.kind).toBe('deny');
    expect(decision.matched.map((rule) => rule.source)).toEqual(['managed', 'cli']);
  });

  test('imported Claude Code rules share one band: a user deny beats a managed allow', () => {
    const policy = createPolicy({
      ...base,
      rules: [
        { rule: 'Bash(curl:*)', decision: 'allow', source: 'managed', band: 'claude-code' },
        { rule: 'Bash(curl:*)', decision: 'deny', source: 'user', band: 'claude-code' },
      ],
    });
    expect(policy.decideArguments(input('curl x')).kind).toBe('deny');
  });

  test('allowManagedRulesOnly drops every other source, with a warning', () => {
    const policy = createPolicy({
      ...base,
      managed: { allowManagedRulesOnly: true },
      rules: [
        { rule: 'Bash(ls)', decision: 'allow', source: 'managed' },
        { rule: 'Bash(rm:*)', decision: 'allow', source: 'user', id: 'user-rm' },
      ],
    });
    expect(policy.warnings.join('\n')).toContain('user-rm');
    expect(policy.decideArguments(input('rm x')).matched).toEqual([]);
  });

  test('a tool-wide deny refuses at identity only when nothing outranks it', () => {
    const blanket = createPolicy({ rules: [{ rule: 'Bash', decision: 'deny', source: 'project' }, { rule: 'Bash(ls)', decision: 'allow', source: 'project' }] });
    expect(blanket.decideIdentity({ tool: toolView('command'), agent: undefined }).kind).toBe('deny');
    const outranked = createPolicy({ rules: [{ rule: 'Bash', decision: 'deny', source: 'project' }, { rule: 'Bash(ls)', decision: 'allow', source: 'project', priority: 1 }] });
    expect(outranked.decideIdentity({ tool: toolView('command'), agent: undefined }).kind).toBe('allow');
  });

  test('path rules: an allow must cover every path, a deny needs one', () => {
    const policy = createPolicy({
      rules: [
        { rule: 'Edit(./docs/**)', decision: 'allow', source: 'project' },
        { rule: 'Read(./private/**)', decision: 'deny', source: 'project' },
      ],
    });
    const write = (paths: string[]) => policy.decideArguments({ ...callOf('write', { paths }) });
    expect(write(['docs/a.md', 'docs/b.md']).matched.map((rule) => rule.decision)).toEqual(['allow']);
    expect(write(['docs/a.md', 'src/b.md']).matched).toEqual([]);
    const read = (paths: string[]) => policy.decideArguments(callOf('read', { paths }));
    expect(read(['ok.md', 'private/key']).kind).toBe('deny');
    expect(read(['ok.md', 'PRIVATE/key']).kind).toBe('deny');
  });

  test('defaults: read-only tools allow, governed tools defer to approval, approveAtRisk asks', () => {
    const policy = createPolicy({ approveAtRisk: 'high', allowedCommands: ['ls'] });
    expect(policy.decideArguments(callOf('read', { path: 'a' })).kind).toBe('allow');
    expect(policy.decideArguments(callOf('write', { path: 'a' })).kind).toBe('allow');
    const risky = policy.decideArguments(callOf('command', { command: 'ls' }));
    expect(risky).toMatchObject({ kind: 'ask', reason: 'risk' });
  });
});

test('a tilde-prefixed name is not the directory without it', () => {
  const policy = createPolicy({ rules: [{ rule: 'Edit(./docs/**)', decision: 'allow', source: 'project' }] });
  expect(policy.explain({ tool: toolView('write'), target: { path: '~docs/x.md' } }).rules).toEqual([]);
  expect(policy.explain({ tool: toolView('write'), target: { path: 'docs/x.md' } }).rules).toHaveLength(1);
});

describe('exact argv rules (`match: { argv, exact: true }`)', () => {
  const exactRule = (argv: string | string[], decision: 'allow' | 'deny' = 'allow') => compileRule({ tool: 'run_command', decision, source: 'project', match: { argv, exact: true } as never }, 0);

  test('a `*` element is a literal asterisk, not "any remaining arguments"', () => {
    const rule = exactRule(['rm', '-rf', '*']);
    expect(matchExample(rule.match, ['rm', '-rf', '*'])).toBe(true);
    for (const argv of [['rm', '-rf', '/home', '/etc'], ['rm', '-rf', '.git'], ['rm', '-rf'], ['rm', '-rf', '**'], ['rm', '-rf', '*', '/'], ['rm', '-rf', '\\*']]) {
      expect(matchExample(rule.match, argv), argv.join(' ')).toBe(false);
    }
  });

  test('a `*` inside an element is literal; the string form splits on spaces as usual', () => {
    const rule = exactRule('find . -name *.log');
    expect(matchExample(rule.match, ['find', '.', '-name', '*.log'])).toBe(true);
    expect(matchExample(rule.match, ['find', '.', '-name', 'a.log'])).toBe(false);
    expect(matchExample(rule.match, ['find', '.', '-name', '.log'])).toBe(false);
  });

  test('the policy evaluates it exactly, and explain shows it as exact', () => {
    const policy = createPolicy({ allowedCommandGlobs: ['*'], rules: [{ tool: 'run_command', decision: 'allow', source: 'project', match: { argv: ['rm', '-rf', '*'], exact: true } as never }] });
    const rules = (command: string[]) => policy.explain({ tool: 'run_command', target: { command } }).rules;
    expect(rules(['rm', '-rf', '*']).map((rule) => rule.rule)).toEqual(['run_command(exact argv:rm -rf *)']);
    expect(rules(['rm', '-rf', '/home', '/etc'])).toEqual([]);
  });

  test('an exact allow matches the command run at the workspace root whose argument paths cross no link; an exact deny matches it anywhere', () => {
    const exact = (decision: 'allow' | 'deny') => ({ tool: 'run_command', decision, source: 'project' as const, match: { argv: ['cat', 'notes.txt'], exact: true } as never });
    const scope = { tier: 'workspace-write' as const, roots: ['/w'] };
    const allowing = createPolicy({ allowedCommandGlobs: ['*'], scope, rules: [exact('allow')] });
    const denying = createPolicy({ allowedCommandGlobs: ['*'], scope, rules: [exact('deny')] });
    const argument = (linkTraversal: boolean) => ({ requested: 'notes.txt', path: 'notes.txt', real: linkTraversal ? 'private/plans.md' : 'notes.txt', protected: false, linkTraversal, outside: false, created: false, hardLinked: false });
    const run = (cwd: string | undefined, linked = false) => {
      const target = { command: ['cat', 'notes.txt'], ...(cwd === undefined ? {} : { path: cwd }) };
      const cwdPath = { ...argument(false), requested: cwd ?? '.', path: cwd ?? '.', real: cwd ?? '.' };
      const action = { resolvedBy: 'host' as const, access: 'read' as const, files: cwd === undefined ? [] : [cwdPath], command: { argv: ['cat', 'notes.txt'], executable: '/usr/bin/cat', cwd: cwdPath, arguments: [argument(linked)] } };
      return callOf('command', target, { action });
    };
    for (const call of [run(undefined), run('.'), run('src/..'), run('/w')]) expect(allowing.decideArguments(call).matched.map((rule) => rule.decision)).toEqual(['allow']);
    for (const call of [run('src'), run('/w/src'), run(undefined, true), run('.', true)]) {
      expect(allowing.decideArguments(call).matched).toEqual([]);
      expect(denying.decideArguments(call).kind).toBe('deny');
    }
  });

  test('an exact allow does not take a working directory spelled with a backslash for the root: a POSIX host runs in the folder `x\\..`', () => {
    const scope = { tier: 'workspace-write' as const, roots: ['/w'] };
    const allowing = createPolicy({ allowedCommandGlobs: ['*'], scope, rules: [{ tool: 'run_command', decision: 'allow', source: 'project', match: { argv: ['rm', '-rf', 'build'], exact: true } as never }] });
    const command = ['rm', '-rf', 'build'];
    const path = (spelled: string, real: string) => ({ requested: spelled, path: real, real, protected: false, linkTraversal: false, outside: false, created: false, hardLinked: false });
    const argument = path('build', 'build');
    for (const cwd of ['x\\..', '.\\', 'src\\..\\.']) {
      // As the Node host resolves it (the folder of that name), and as an engine without a host folds it (the root).
      for (const resolved of [path(cwd, cwd), path(cwd, '.')]) {
        const action = { resolvedBy: 'host' as const, access: 'write' as const, files: [resolved], command: { argv: command, executable: '/usr/bin/rm', cwd: resolved, arguments: [argument] } };
        expect(allowing.decideArguments(callOf('command', { command, path: cwd }, { action })).matched).toEqual([]);
      }
    }
    const root = path('.', '.');
    const action = { resolvedBy: 'host' as const, access: 'write' as const, files: [root], command: { argv: command, executable: '/usr/bin/rm', cwd: root, arguments: [argument] } };
    expect(allowing.decideArguments(callOf('command', { command, path: '.' }, { action })).matched.map((rule) => rule.decision)).toEqual(['allow']);
  });

  test('a rule written before the flag keeps its meaning: `*` is still a glob there', () => {
    const legacy = compileRule({ tool: 'run_command', decision: 'allow', source: 'project', match: { argv: ['rm', '-rf', '*'] } }, 0);
    expect(matchExample(legacy.match, ['rm', '-rf', '/home', '/etc'])).toBe(true);
    expect(matchExample(legacy.match, ['rm', '-rf', '*'])).toBe(true);
    const unflagged = compileRule({ tool: 'run_command', decision: 'deny', source: 'project', match: { argv: ['rm', '-rf', '*'], exact: false } as never }, 0);
    expect(matchExample(unflagged.match, ['rm', '-rf', '/'])).toBe(true);
    // Backslashes were never escapes, and are not now.
    const backslash = compileRule({ tool: 'run_command', decision: 'deny', source: 'project', match: { argv: ['del', 'C:\\tmp\\*'] } }, 0);
    expect(matchExample(backslash.match, ['del', 'C:\\tmp\\x.txt'])).toBe(true);
  });

  test.each([
    [{ argv: ['rm', '-rf', '*'], exact: 'yes' }],
    [{ argv: ['rm', '-rf', '*'], exact: 1 }],
    [{ path: './src/*', exact: true }],
    [{ domain: 'api.github.com', exact: true }],
  ])('a malformed or misplaced exact flag %j is refused', (match) => {
    expect(() => compileRule({ tool: 'run_command', decision: 'allow', source: 'user', match: match as never }, 0)).toThrow(PolicyRuleError);
  });
});

describe('what a path or server rule covers', () => {
  const project = (decision: 'allow' | 'ask' | 'deny', rule: string) => ({ rule, decision, source: 'project' as const });
  const read = (path: string) => callOf('read', { path });

  test('a deny on a bare name covers everything inside the folder it names, as gitignore does; an allow does not widen', () => {
    const policy = createPolicy({ rules: [project('deny', 'Read(secrets)'), project('allow', 'Read(docs)')], scope: { tier: 'workspace-write', roots: ['/w'] } });
    for (const path of ['secrets', 'secrets/key.pem', 'a/secrets/deep/key', 'a\nb/secrets/key', 'secrets/x\ny/key']) expect(policy.decideArguments(read(path)).kind, JSON.stringify(path)).toBe('deny');
    expect(policy.decideArguments(read('secretsx/key')).kind).not.toBe('deny');
    expect(policy.explain({ tool: toolView('read'), target: { path: 'docs/a.md' } }).rules.some((rule) => rule.winner)).toBe(false);
  });

  test('protectedPaths read the same way: a bare name protects what is inside it', () => {
    const policy = createPolicy({ protectedPaths: ['secrets', '/deploy'], scope: { tier: 'workspace-write', roots: ['/w'] } });
    for (const path of ['secrets/key.pem', 'deploy/prod.env', 'secrets']) expect(policy.isProtectedPath(path), path).toBe(true);
    expect(policy.isProtectedPath('src/deploy/x')).toBe(false);
  });

  test('without workspace roots, a deny anchored to the workspace also refuses an absolute path it cannot place', () => {
    const policy = createPolicy({ rules: [project('deny', 'Read(./secrets/**)')] });
    expect(policy.decideArguments(read('secrets/key')).kind).toBe('deny');
    expect(policy.decideArguments(read('/srv/ws/secrets/key')).kind).toBe('deny');
    expect(policy.decideArguments(read('/srv/ws//secrets/key')).kind).toBe('deny');
    // With roots it is placed: inside is denied, outside is not this rule's.
    const rooted = createPolicy({ rules: [project('deny', 'Read(./secrets/**)')], scope: { tier: 'full', roots: ['/srv/ws'] } });
    expect(rooted.decideArguments(read('/srv/ws/secrets/key')).kind).toBe('deny');
    expect(rooted.decideArguments(read('/etc/hosts')).kind).not.toBe('deny');
  });

  test('mcp__server covers that server only, not another whose tool names share the prefix', () => {
    const policy = createPolicy({ rules: [project('allow', 'mcp__github')], mcpServers: ['github', 'github_mirror'], mode: 'auto' });
    const call = (name: string, server: string) => callOf('mcp', { server }, { tool: toolView('mcp', { name }) });
    expect(policy.decideArguments(call('mcp_github_create_issue', 'github')).matched.map((rule) => rule.decision)).toEqual(['allow']);
    expect(policy.decideArguments(call('mcp_github_mirror_delete_repo', 'github_mirror')).matched).toEqual([]);
  });
});

describe('~/ in path rules', () => {
  const project = (decision: 'allow' | 'deny', rule: string) => ({ rule, decision, source: 'project' as const });
  const read = (path: string) => callOf('read', { path });

  test('names the home directory given to createPolicy; a deny still catches the literal spelling', () => {
    const policy = createPolicy({ rules: [project('deny', 'Read(~/.ssh/**)')], home: '/home/ada', scope: { tier: 'full', roots: ['/srv/ws'] } });
    for (const path of ['/home/ada/.ssh/id_ed25519', '~/.ssh/id_ed25519']) expect(policy.decideArguments(read(path)).kind, path).toBe('deny');
    expect(policy.decideArguments(read('/home/bob/.ssh/id_ed25519')).kind).not.toBe('deny');
  });

  test('an allow names the home directory only', () => {
    const policy = createPolicy({ rules: [project('allow', 'Read(~/notes/**)')], home: '/home/ada/', scope: { tier: 'full', roots: ['/srv/ws'] } });
    expect(policy.explain({ tool: toolView('read'), target: { path: '/home/ada/notes/a.md' } }).rules.map((rule) => rule.decision)).toEqual(['allow']);
    expect(policy.explain({ tool: toolView('read'), target: { path: '~/notes/a.md' } }).rules).toEqual([]);
  });
});

describe('Bash rules and the git built-ins', () => {
  test('a Bash(git …) rule reaches git_status and git_commit, which run git without giving a command', () => {
    const policy = createPolicy({ rules: [{ rule: 'Bash(git commit:*)', decision: 'deny', source: 'managed' }, { rule: 'Bash(git status)', decision: 'deny', source: 'project' }] });
    const gitTool = (name: string) => callOf('gated', { path: '.' }, { tool: toolView('gated', { name, fixedArgv: ['git', 'commit'] }), gateApproved: true });
    expect(policy.decideArguments(gitTool('git_commit'))).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
    expect(policy.decideArguments(callOf('read', { path: '.' }, { tool: toolView('read', { name: 'git_status', fixedArgv: ['git', 'status'] }) }))).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
  });
});
