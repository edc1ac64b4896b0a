import { describe, expect, test, vi } from 'vitest';
import type { ResolvedPath } from '../action/resolved-action.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { createFakeHost } from '../../testing/create-fake-host.js';
import { defineTool } from '../tools/define-tool.js';
import type { ToolApprovalDecision } from './approval-types.js';
import { createConfirm, type PromptHook } from './create-confirm.js';
import { createLivePolicy } from './create-live-policy.js';
import { createPolicy } from './create-policy.js';
import type { CreatePolicyOptions } from './policy-snapshot-types.js';
import { PolicyRuleError } from './policy-rule-error.js';
import type { PolicyRuleObject } from './rule-types.js';
import { governedTools } from './__fixtures__/governed-tools.js';

let counter = 0;
const call = (name: string, args: unknown) => ({ callId: `t${(counter += 1)}`, name, arguments: args });
const object = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false });

// Tools in the shape of the built-ins whose preview shows more than one thing, or nothing at all.
const runInDir = defineTool({
  name: 'run_command',
  description: 'Run a command (argv, no shell) in a working directory.',
  input: object({ command: { type: 'array', items: { type: 'string' } }, cwd: { type: 'string' } }, ['command']),
  policy: { spawnsProcess: true },
  policyTarget: (args) => ({ command: args.command as string[], ...(args.cwd === undefined ? {} : { path: args.cwd as string }) }),
  dispatch: () => 'ran',
});
const mcpCall = defineTool({
  name: 'mcp_call',
  description: 'Call a tool on an MCP server.',
  input: object({ server: { type: 'string' }, tool: { type: 'string' }, arguments: { type: 'object' } }, ['server', 'tool']),
  policy: { egress: 'mcp' },
  policyTarget: (args) => ({ server: args.server as string }),
  dispatch: () => 'called',
});
const webSearch = defineTool({
  name: 'web_search',
  description: 'Search the web.',
  input: object({ query: { type: 'string' }, endpoint: { type: 'string' } }, ['query']),
  policy: { egress: 'search' },
  policyTarget: (args) => ({ query: args.query as string, ...(args.endpoint === undefined ? {} : { url: args.endpoint as string }) }),
  dispatch: () => 'found',
});
const fetchAny = defineTool({
  name: 'http_request',
  description: 'Fetch a URL.',
  input: object({ url: { type: 'string' } }, ['url']),
  policy: { egress: 'http' },
  policyTarget: (args) => ({ url: args.url as string }),
  dispatch: () => 200,
});
const targetTools = [runInDir, mcpCall, webSearch, fetchAny];

/** The person approves the first prompt with `scope` and rejects every later one. */
function setupTargets(scope: 'session' | 'always', options: CreatePolicyOptions = {}) {
  const policy = createLivePolicy(
    createPolicy({
      allowedCommands: [['rm', '-rf', 'build'], ['rm', '-rf', '*'], ['git', 'status']],
      allowedDomains: ['api.github.com', 'search.example.org', '*.example.net'],
      mcpServers: ['github'],
      scope: { tier: 'workspace-write', roots: ['/work/repo'] },
      ...options,
    }),
  );
  let prompted = 0;
  const prompt = vi.fn<PromptHook>(async (): Promise<ToolApprovalDecision> => ((prompted += 1) === 1 ? { outcome: 'approve', scope } : { outcome: 'reject', reason: 'not approved' }));
  const persisted: PolicyRuleObject[] = [];
  const approvals = createConfirm({ mode: 'ask', prompt, policy, remember: { persist: async (rule) => void persisted.push(rule) } });
  const registry = createToolRegistry({ tools: targetTools, host: createFakeHost(), policy });
  const granted = targetTools.map((tool) => tool.name);
  const run = (name: string, args: unknown, agent?: string) =>
    registry.dispatch(call(name, args), { ...(agent === undefined ? {} : { agent }), grantedTools: granted, approval: { confirm: approvals.confirm } });
  return { prompt, approvals, run, persisted };
}

describe('remembered approvals cover only what the approver saw', () => {
  test('mcp_call: approving github/get_issue does not approve github/delete_repo', async () => {
    const { prompt, run } = setupTargets('session');
    expect((await run('mcp_call', { server: 'github', tool: 'get_issue', arguments: { number: 1 } })).ok).toBe(true);
    const other = await run('mcp_call', { server: 'github', tool: 'delete_repo', arguments: { repo: 'me/prod' } });
    expect(other.ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
    // The same MCP tool on the same server with the same arguments is what was approved.
    const again = await run('mcp_call', { server: 'github', tool: 'get_issue', arguments: { number: 1 } });
    expect(again.ok).toBe(true);
    expect(again.receipt.approval).toMatchObject({ how: 'confirm:remembered' });
    expect(prompt).toHaveBeenCalledTimes(2);
    // Other arguments are another call: the approver never saw them.
    expect((await run('mcp_call', { server: 'github', tool: 'get_issue', arguments: { number: 2 } })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(3);
  });

  test('mcp_call: a tool name the approver saw only redacted is remembered for that exact input only', async () => {
    const { prompt, run } = setupTargets('session');
    const secretish = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz';
    expect((await run('mcp_call', { server: 'github', tool: secretish })).ok).toBe(true);
    expect((await run('mcp_call', { server: 'github', tool: 'ghp_zyxwvutsrqponmlkjihgfedcba9876543210' })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
    expect(prompt.mock.calls[0]?.[0].arguments).toMatchObject({ tool: '[redacted]' });
  });

  test('run_command: approving `rm -rf build` in sandbox/tmp does not approve it in `.` or with no working directory', async () => {
    const { prompt, run } = setupTargets('session');
    expect((await run('run_command', { command: ['rm', '-rf', 'build'], cwd: 'sandbox/tmp' })).ok).toBe(true);
    expect((await run('run_command', { command: ['rm', '-rf', 'build'], cwd: '.' })).ok).toBe(false);
    expect((await run('run_command', { command: ['rm', '-rf', 'build'] })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(3);
    expect((await run('run_command', { command: ['rm', '-rf', 'build'], cwd: 'sandbox/tmp' })).ok).toBe(true);
    expect(prompt).toHaveBeenCalledTimes(3);
  });

  test('run_command: approving `rm -rf "a b"` does not approve `rm -rf a b`, nor an element holding a NUL or a line break', async () => {
    const { run } = setupTargets('session', { allowedCommandGlobs: ['rm *'] });
    expect((await run('run_command', { command: ['rm', '-rf', 'a b'] })).ok).toBe(true);
    for (const command of [['rm', '-rf', 'a', 'b'], ['rm', '-rf', 'a\u0000b'], ['rm', '-rf', 'a\nb']]) expect((await run('run_command', { command })).ok, JSON.stringify(command)).toBe(false);
    expect((await run('run_command', { command: ['rm', '-rf', 'a b'] })).receipt.approval).toMatchObject({ how: 'confirm:remembered' });
  });

  test('run_command: approving it with no working directory does not approve it in one', async () => {
    const { prompt, run } = setupTargets('session');
    expect((await run('run_command', { command: ['rm', '-rf', 'build'] })).ok).toBe(true);
    expect((await run('run_command', { command: ['rm', '-rf', 'build'], cwd: '/etc' })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
  });

  /**
   * A command allowed to run, approved for the session at its first prompt and rejected at every later one, on a
   * host that resolves each argument path through `argument` (read again at each call: the test changes the disk).
   */
  function sessionApprovedCommand(argv: readonly string[], executable: string, argument: (requested: string) => Partial<ResolvedPath>) {
    const policy = createPolicy({ allowedCommands: [[...argv]], scope: { tier: 'workspace-write', roots: ['/work/repo'] } });
    const prompt = vi.fn<PromptHook>(async (): Promise<ToolApprovalDecision> => (prompt.mock.calls.length === 1 ? { outcome: 'approve', scope: 'session' } : { outcome: 'reject' }));
    const approvals = createConfirm({ mode: 'ask', prompt, policy });
    const resolve = (request: { arguments?: readonly string[] }) => ({
      files: [],
      executable,
      arguments: (request.arguments ?? []).map((requested) => ({ requested, path: requested, real: requested, protected: false, linkTraversal: false, outside: false, created: false, hardLinked: false, ...argument(requested) })),
    });
    const registry = createToolRegistry({ tools: [runInDir], host: { ...createFakeHost(), resolve }, policy });
    const run = () => registry.dispatch(call('run_command', { command: [...argv] }), { grantedTools: ['run_command'], approval: { confirm: approvals.confirm } });
    return { prompt, approvals, run };
  }

  test('run_command: approving `cat notes.txt` does not approve it once notes.txt leads to another file', async () => {
    // Where the host finds notes.txt leading; a link keeps its name and changes its real path.
    let real = 'notes.txt';
    const { prompt, approvals, run } = sessionApprovedCommand(['cat', 'notes.txt'], '/usr/bin/cat', (requested) => ({ real, linkTraversal: real !== requested }));
    expect((await run()).ok).toBe(true);
    expect((await run()).receipt.approval).toMatchObject({ how: 'confirm:remembered' });
    expect(approvals.remembered()).toEqual([expect.objectContaining({ kind: 'argv', also: { path: '.', executable: '/usr/bin/cat', arguments: '["notes.txt"]' } })]);
    real = 'private/plans.md';
    expect((await run()).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
  });

  test('run_command: approving `sh run.sh` does not approve it once run.sh holds other bytes, and the key does not show them', async () => {
    // What the host finds run.sh holding: its content stamp, which a rewrite changes.
    let contentStamp = '18:1700000000000.25:1700000000000.25';
    const { prompt, approvals, run } = sessionApprovedCommand(['sh', 'run.sh'], '/usr/bin/sh', () => ({ contentStamp }));
    expect((await run()).ok).toBe(true);
    expect((await run()).receipt.approval).toMatchObject({ how: 'confirm:remembered' });
    expect(approvals.remembered()).toEqual([expect.objectContaining({ kind: 'argv', also: { path: '.', executable: '/usr/bin/sh', arguments: '["run.sh"]' } })]);
    contentStamp = '18:1700000000000.25:1700000000090.5';
    expect((await run()).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
  });

  test('web_search: approving one query does not approve another', async () => {
    const { prompt, run } = setupTargets('session');
    expect((await run('web_search', { query: 'weather berlin' })).ok).toBe(true);
    expect((await run('web_search', { query: 'acme internal: merger with globex closes 2025-07-01' })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
    // The identical input is the approved one.
    expect((await run('web_search', { query: 'weather berlin' })).ok).toBe(true);
    expect(prompt).toHaveBeenCalledTimes(2);
  });

  test('web_search: a configured endpoint host does not stand for every query sent to it', async () => {
    const { prompt, run } = setupTargets('session');
    const endpoint = 'https://search.example.org/search';
    expect((await run('web_search', { query: 'weather berlin', endpoint })).ok).toBe(true);
    expect((await run('web_search', { query: 'the deploy key is in ~/.ssh/id_ed25519', endpoint })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
  });

  test.each([
    ['run_command', { command: ['git', 'status'] }],
    ['mcp_call', { server: 'github', tool: 'get_issue' }],
    ['web_search', { query: 'weather berlin' }],
    ['http_request', { url: 'https://api.github.com/x' }],
  ] as const)('%s: an approval given to one agent is not reused by another', async (name, args) => {
    const { prompt, run } = setupTargets('session');
    expect((await run(name, args, 'planner')).ok).toBe(true);
    const other = await run(name, args, 'untrusted-subagent');
    expect(other.ok).toBe(false);
    expect((await run(name, args)).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(3);
    expect((await run(name, args, 'planner')).ok).toBe(true);
    expect(prompt).toHaveBeenCalledTimes(3);
  });

  test('an approval is bound to the tool: a host approved for one tool is not approved for another', async () => {
    const { prompt, run } = setupTargets('session');
    expect((await run('http_request', { url: 'https://search.example.org/a' })).ok).toBe(true);
    expect((await run('web_search', { query: 'x', endpoint: 'https://search.example.org/search' })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
  });
});

describe('always: the persisted rule matches what was remembered and nothing more', () => {
  test('a command with a working directory is remembered for the session but not persisted (a rule cannot bind the directory)', async () => {
    const { prompt, run, persisted, approvals } = setupTargets('always');
    expect((await run('run_command', { command: ['rm', '-rf', 'build'], cwd: 'sandbox/tmp' })).ok).toBe(true);
    expect(persisted).toEqual([]);
    expect((await run('run_command', { command: ['rm', '-rf', 'build'], cwd: 'sandbox/tmp' })).ok).toBe(true);
    expect(prompt).toHaveBeenCalledTimes(1);
    expect(approvals.remembered()).toEqual([expect.objectContaining({ tool: 'run_command', kind: 'argv', value: '["rm","-rf","build"]', also: { path: 'sandbox/tmp' }, scope: 'always' })]);
  });

  test.each([
    ['a backslash, which a rule reads as a separator', 'src\\index.ts', []],
    ['a workspace folder named ~, which a rule reads as the home', '~/notes.txt', []],
    ['a workspace folder named like a drive', 'C:/notes.txt', []],
    ['glob characters, escaped', 'src/[weird]*.ts', [{ path: './src/\\[weird\\]\\*.ts' }]],
  ])('a path holding %s is remembered, and persisted only as a rule that names it exactly', async (_what, path, rules) => {
    const written = defineTool({
      name: 'write_file',
      description: 'Write a file.',
      input: object({ path: { type: 'string' } }, ['path']),
      policy: { fsScoped: true, fsWrite: true },
      policyTarget: (args) => ({ path: args.path as string }),
      dispatch: () => 'written',
    });
    const policy = createPolicy({ scope: { tier: 'full', roots: ['/work/repo'] } });
    const persisted: PolicyRuleObject[] = [];
    const approvals = createConfirm({ mode: 'ask', prompt: async () => ({ outcome: 'approve', scope: 'always' }), policy, remember: { persist: async (rule) => void persisted.push(rule) } });
    // The host resolves the name as the filesystem has it: one file of the workspace root.
    const host = { ...createFakeHost(), resolve: () => ({ files: [{ requested: path, path, real: path, protected: false, linkTraversal: false, outside: false, created: false, hardLinked: false }] }) };
    const registry = createToolRegistry({ tools: [written], host, policy });
    expect((await registry.dispatch(call('write_file', { path }), { grantedTools: ['write_file'], approval: { confirm: approvals.confirm } })).ok).toBe(true);
    expect(approvals.remembered()).toEqual([expect.objectContaining({ kind: 'path', value: path, scope: 'always' })]);
    expect(persisted.map((rule) => rule.match)).toEqual(rules);
  });

  test('a command with an empty argument, which no argv rule can name, is remembered and runs, but is not persisted', async () => {
    const { prompt, run, persisted } = setupTargets('always', { allowedCommandGlobs: ['echo *'] });
    expect((await run('run_command', { command: ['echo', ''] })).ok).toBe(true);
    expect(persisted).toEqual([]);
    expect((await run('run_command', { command: ['echo', ''] })).receipt.approval).toMatchObject({ how: 'confirm:remembered' });
    expect(prompt).toHaveBeenCalledTimes(1);
  });

  test('mcp_call and web_search are remembered for the session but not persisted as tool- or server-wide rules', async () => {
    for (const [name, args] of [
      ['mcp_call', { server: 'github', tool: 'get_issue' }],
      ['web_search', { query: 'weather berlin' }],
    ] as const) {
      const { run, persisted } = setupTargets('always');
      expect((await run(name, args)).ok).toBe(true);
      expect(persisted).toEqual([]);
    }
  });

  test('a host holding a literal `*` is not persisted as a wildcard domain rule', async () => {
    const { prompt, run, persisted } = setupTargets('always');
    expect((await run('http_request', { url: 'https://*.example.net/x' })).ok).toBe(true);
    expect(persisted).toEqual([]);
    expect((await run('http_request', { url: 'https://api.example.net/x' })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(2);
  });

  test('an HTTP approval is remembered for the identical request alone, and never persisted as a domain rule', async () => {
    const { run, persisted, prompt } = setupTargets('always');
    expect((await run('http_request', { url: 'https://api.github.com/x' })).ok).toBe(true);
    // No rule can say the whole request: a domain rule would allow every request to the host.
    expect(persisted).toEqual([]);
    expect((await run('http_request', { url: 'https://api.github.com/x' })).receipt.approval).toMatchObject({ how: 'confirm:remembered' });
    // A query is what leaves as much as the path: `?q=` can carry what the model read.
    expect((await run('http_request', { url: 'https://api.github.com/x?q=merger-with-globex' })).ok).toBe(false);
    expect((await run('http_request', { url: 'https://api.github.com/repos/me/prod' })).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(3);
  });

  test('an argv holding a literal `*` is persisted as an exact argv, never a glob', async () => {
    const { run, persisted } = setupTargets('always', { allowedCommandGlobs: ['*'] });
    expect((await run('run_command', { command: ['rm', '-rf', '*'] })).ok).toBe(true);
    expect(persisted).toHaveLength(1);
    expect(persisted[0]?.match).toEqual({ argv: ['rm', '-rf', '*'], exact: true });
    // The next session loads the rule; auto mode approves what a rule allows.
    const next = createPolicy({ allowedCommandGlobs: ['*'], rules: persisted, mode: 'auto' });
    const allowedBy = (argv: string[]) => next.explain({ tool: 'run_command', target: { command: argv } }).rules.filter((rule) => rule.decision === 'allow');
    expect(allowedBy(['rm', '-rf', '*'])).toHaveLength(1);
    for (const argv of [['rm', '-rf', '/home', '/etc'], ['rm', '-rf', '.git'], ['rm', '-rf'], ['rm', '-rf', '**'], ['rm', '-rf', '*', '/']]) {
      expect(allowedBy(argv), argv.join(' ')).toEqual([]);
    }
    const prompt = vi.fn<PromptHook>(async () => ({ outcome: 'reject' }));
    const approvals = createConfirm({ mode: 'auto', policy: next, prompt });
    const host = createFakeHost();
    const registry = createToolRegistry({ tools: governedTools, host, policy: next });
    const grantedTools = governedTools.map((tool) => tool.name);
    const outcome = await registry.dispatch(call('run_command', { command: ['rm', '-rf', '/home'] }), { grantedTools, approval: { confirm: approvals.confirm } });
    expect(outcome.ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(1);
    expect(host.calls).toEqual([]);
    const same = await registry.dispatch(call('run_command', { command: ['rm', '-rf', '*'] }), { grantedTools, approval: { confirm: approvals.confirm } });
    expect(same.receipt.approval).toMatchObject({ outcome: 'approve', how: 'confirm:mode:auto' });
  });

  test('a `*` inside an element is literal too', async () => {
    const { run, persisted } = setupTargets('always', { allowedCommandGlobs: ['*'] });
    expect((await run('run_command', { command: ['rm', '-f', '*.log'] })).ok).toBe(true);
    const next = createPolicy({ allowedCommandGlobs: ['*'], rules: persisted });
    const allowedBy = (argv: string[]) => next.explain({ tool: 'run_command', target: { command: argv } }).rules.filter((rule) => rule.decision === 'allow');
    expect(allowedBy(['rm', '-f', '*.log'])).toHaveLength(1);
    expect(allowedBy(['rm', '-f', 'app.log'])).toEqual([]);
    expect(allowedBy(['rm', '-f', '.log'])).toEqual([]);
  });

  test('a persisted argv holding `*` refuses to load where the exact flag is not understood (its own counter-example fails)', async () => {
    const { run, persisted } = setupTargets('always', { allowedCommandGlobs: ['*'] });
    await run('run_command', { command: ['rm', '-rf', '*'] });
    const rule = persisted[0] as PolicyRuleObject;
    expect(() => createPolicy({ rules: [rule] })).not.toThrow();
    // A reader that drops `exact` sees the glob `rm -rf *`: the rule's counter-example then matches and it refuses to load.
    const { exact: _dropped, ...asGlob } = rule.match as { argv: string[]; exact: boolean };
    expect(() => createPolicy({ rules: [{ ...rule, match: asGlob }] })).toThrow(PolicyRuleError);
  });
});
