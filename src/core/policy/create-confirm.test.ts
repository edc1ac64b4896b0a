import { describe, expect, test, vi } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { createFakeHost } from '../../testing/create-fake-host.js';
import { ToolDeniedByUserError } from '../errors/tool-errors.js';
import { defineTool } from '../tools/define-tool.js';
import type { ToolApprovalDecision } from './approval-types.js';
import { createConfirm, type PromptHook } from './create-confirm.js';
import { createLivePolicy } from './create-live-policy.js';
import { createPolicy } from './create-policy.js';
import type { ApprovalMode, CreatePolicyOptions } from './policy-snapshot-types.js';
import { PolicyRuleError } from './policy-rule-error.js';
import type { PolicyRuleObject } from './rule-types.js';
import { governedTools } from './__fixtures__/governed-tools.js';

const grantedTools = governedTools.map((tool) => tool.name);
let counter = 0;
const call = (name: string, args: unknown) => ({ callId: `c${(counter += 1)}`, name, arguments: args });
const object = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false });

function setup(mode: ApprovalMode, options: CreatePolicyOptions = {}, answer: ToolApprovalDecision = { outcome: 'approve' }) {
  const policy = createLivePolicy(
    createPolicy({
      allowedCommands: ['git status', 'npm test'],
      allowedDomains: ['api.github.com'],
      scope: { tier: 'workspace-write', roots: ['/work/repo'] },
      ...options,
    }),
  );
  const prompt = vi.fn<PromptHook>(async () => answer);
  const persisted: PolicyRuleObject[] = [];
  const approvals = createConfirm({ mode, prompt, policy, remember: { persist: async (rule) => void persisted.push(rule) } });
  const host = createFakeHost();
  const registry = createToolRegistry({ tools: governedTools, host, policy });
  const run = (name: string, args: unknown) => registry.dispatch(call(name, args), { grantedTools, approval: { confirm: approvals.confirm } });
  return { policy, prompt, approvals, host, registry, run, persisted };
}

const write = (path: string) => ['write_file', { path, content: 'x' }] as const;
const command = (argv: string[]) => ['run_command', { command: argv }] as const;
const fetchUrl = (url: string) => ['http_request', { url }] as const;

describe('approval modes', () => {
  test('ask: every governed call reaches the prompt', async () => {
    const { prompt, run } = setup('ask');
    expect((await run(...write('src/a.ts'))).ok).toBe(true);
    expect((await run(...command(['git', 'status']))).ok).toBe(true);
    expect(prompt).toHaveBeenCalledTimes(2);
  });

  test('plan: no governed call runs and the denial says plan mode', async () => {
    const { prompt, run, host } = setup('plan');
    const outcome = await run(...write('src/a.ts'));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toBeInstanceOf(ToolDeniedByUserError);
      expect(outcome.error.message).toContain('plan mode');
    }
    expect(prompt).not.toHaveBeenCalled();
    expect(host.calls).toEqual([]);
  });

  test('accept-edits: workspace writes pass, protected paths and processes still ask', async () => {
    const { prompt, run, host } = setup('accept-edits', {}, { outcome: 'reject' });
    expect((await run(...write('src/a.ts'))).ok).toBe(true);
    expect((await run(...write('/work/repo/docs/b.md'))).ok).toBe(true);
    expect(prompt).not.toHaveBeenCalled();
    expect((await run(...write('.git/config'))).ok).toBe(false);
    expect((await run(...write('src/.env.production'))).ok).toBe(false);
    expect((await run(...command(['git', 'status']))).ok).toBe(false);
    expect((await run(...fetchUrl('https://api.github.com/x'))).ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(4);
    expect(prompt.mock.calls[0]?.[1]).toMatchObject({ protectedPath: true, reason: 'protected_path' });
    expect(host.calls.map((entry) => entry.args[0])).toEqual(['src/a.ts', '/work/repo/docs/b.md']);
  });

  test('auto: rule-allowed calls pass, others go to the classifier, protected paths to the prompt', async () => {
    const classifier = vi.fn(async () => 'reject' as const);
    const { prompt, run, policy } = setup('auto', { rules: [{ rule: 'Bash(git status)', decision: 'allow', source: 'project' }, { rule: 'Edit(./.env)', decision: 'allow', source: 'project' }] });
    const approvals = createConfirm({ mode: 'auto', prompt, policy, classifier });
    const registry = createToolRegistry({ tools: governedTools, host: createFakeHost(), policy });
    const go = (name: string, args: unknown) => registry.dispatch(call(name, args), { grantedTools, approval: { confirm: approvals.confirm } });
    expect((await go(...command(['git', 'status']))).ok).toBe(true);
    expect(classifier).not.toHaveBeenCalled();
    const classified = await go(...command(['npm', 'test']));
    expect(classified.ok).toBe(false);
    expect(classifier).toHaveBeenCalledTimes(1);
    // An allow rule on a protected path is still never auto-approved.
    expect((await go(...write('.env'))).ok).toBe(true);
    expect(prompt).toHaveBeenCalledTimes(1);
    expect(prompt.mock.calls[0]?.[1].protectedPath).toBe(true);
    void run;
  });

  test('auto without a classifier prompts; disableAutoMode falls back to ask', async () => {
    const { prompt, run, approvals } = setup('auto', { managed: { disableAutoMode: true }, rules: [{ rule: 'Bash(git status)', decision: 'allow', source: 'managed' }] });
    expect(approvals.mode).toBe('ask');
    expect((await run(...command(['git', 'status']))).ok).toBe(true);
    expect(prompt).toHaveBeenCalledTimes(1);
  });

  test('protected paths reach the prompt in every mode', async () => {
    for (const mode of ['ask', 'accept-edits', 'auto'] as const) {
      const { prompt, run } = setup(mode, { rules: [{ rule: 'Edit(./.ssh/**)', decision: 'allow', source: 'managed' }] });
      expect((await run(...write('.ssh/authorized_keys'))).ok).toBe(true);
      expect(prompt).toHaveBeenCalledTimes(1);
    }
    const { prompt, run } = setup('plan');
    expect((await run(...write('.ssh/authorized_keys'))).ok).toBe(false);
    expect(prompt).not.toHaveBeenCalled();
  });
});

describe('remembered approvals', () => {
  test('session: the same argv is approved again without a prompt; another argv asks', async () => {
    const { prompt, run, approvals } = setup('ask', {}, { outcome: 'approve', scope: 'session' });
    await run(...command(['git', 'status']));
    await run(...command(['git', 'status']));
    expect(prompt).toHaveBeenCalledTimes(1);
    await run(...command(['npm', 'test']));
    expect(prompt).toHaveBeenCalledTimes(2);
    expect(approvals.remembered().map((entry) => entry.kind)).toEqual(['argv', 'argv']);
  });

  test('once is not remembered; protected paths are never remembered', async () => {
    const once = setup('ask', {}, { outcome: 'approve', scope: 'once' });
    await once.run(...write('src/a.ts'));
    await once.run(...write('src/a.ts'));
    expect(once.prompt).toHaveBeenCalledTimes(2);
    const protectedPath = setup('ask', {}, { outcome: 'approve', scope: 'session' });
    await protectedPath.run(...write('.env'));
    await protectedPath.run(...write('.env'));
    expect(protectedPath.prompt).toHaveBeenCalledTimes(2);
  });

  test('mode-aware: a remembered approval does not apply in plan mode', async () => {
    const { prompt, run, approvals } = setup('ask', {}, { outcome: 'approve', scope: 'session' });
    await run(...fetchUrl('https://api.github.com/a'));
    await run(...fetchUrl('https://api.github.com/b'));
    expect(prompt).toHaveBeenCalledTimes(1);
    approvals.setMode('plan');
    expect((await run(...fetchUrl('https://api.github.com/c'))).ok).toBe(false);
  });

  test('always writes a rule that loads and allows the same call', async () => {
    const { run, persisted } = setup('ask', {}, { outcome: 'approve', scope: 'always' });
    await run(...command(['git', 'status']));
    await run(...write('src/[weird].ts'));
    expect(persisted).toEqual([
      { tool: 'run_command', decision: 'allow', source: 'project', reason: 'remembered approval', match: { argv: ['git', 'status'], exact: true } },
      { tool: 'write_file', decision: 'allow', source: 'project', reason: 'remembered approval', match: { path: './src/\\[weird\\].ts' } },
    ]);
    const reloaded = createPolicy({ allowedCommands: ['git status'], rules: persisted });
    const explained = reloaded.explain({ tool: 'run_command', target: { command: ['git', 'status'] } });
    expect(explained.rules.map((rule) => rule.decision)).toEqual(['allow']);
    const path = reloaded.explain({ tool: 'write_file', target: { path: 'src/[weird].ts' } });
    expect(path.rules).toHaveLength(1);
    expect(reloaded.explain({ tool: 'write_file', target: { path: 'src/w.ts' } }).rules).toHaveLength(0);
  });

  test('always never persists a path with outer spaces, which a rule file would read as another path', async () => {
    const { run, persisted, prompt } = setup('ask', {}, { outcome: 'approve', scope: 'always' });
    await run(...write('c.ts '));
    expect(persisted).toEqual([]);
    // Still remembered for the session, for that exact path only.
    await run(...write('c.ts '));
    await run(...write('c.ts'));
    expect(prompt).toHaveBeenCalledTimes(2);
  });
});

describe('confirm edge cases', () => {
  test('an explicit ask rule is asked every time, even after a session approval', async () => {
    const { prompt, run } = setup('ask', { rules: [{ rule: 'Bash(git status)', decision: 'ask', source: 'project' }] }, { outcome: 'approve', scope: 'session' });
    await run(...command(['git', 'status']));
    await run(...command(['git', 'status']));
    expect(prompt).toHaveBeenCalledTimes(2);
    expect(prompt.mock.calls[0]?.[1].reason).toBe('rule');
  });

  test('a prompt that answers nonsense rejects; an approving classifier approves', async () => {
    const garbage = setup('ask', {}, null as unknown as ToolApprovalDecision);
    expect((await garbage.run(...write('src/a.ts'))).ok).toBe(false);
    const policy = createLivePolicy(createPolicy({ allowedCommands: ['npm test'] }));
    const approvals = createConfirm({ mode: 'auto', policy, prompt: async () => ({ outcome: 'reject' }), classifier: () => 'approve' });
    const registry = createToolRegistry({ tools: governedTools, host: createFakeHost(), policy });
    expect((await registry.dispatch(call(...command(['npm', 'test'])), { grantedTools, approval: { confirm: approvals.confirm } })).ok).toBe(true);
  });

  test('an unknown mode is a configuration error', () => {
    expect(() => createConfirm({ mode: 'yolo' as ApprovalMode, prompt: async () => ({ outcome: 'approve' }) })).toThrow('mode');
    const approvals = createConfirm({ prompt: async () => ({ outcome: 'approve' }) });
    expect(approvals.mode).toBe('ask');
    expect(() => approvals.setMode('bypass' as ApprovalMode)).toThrow('mode');
  });

  test('a pending request the live policy has never seen is refused once the policy changed', () => {
    const live = createLivePolicy(createPolicy({ allowedDomains: ['a.example'] }));
    const request = {
      callId: 'x', toolName: 'http_request', toolVersion: undefined, agent: undefined, action: 'egress' as const,
      preview: { host: 'a.example' }, unredactedPreview: { host: 'a.example' }, actionDigest: 'd', arguments: {},
      decision: { kind: 'allow' as const, matched: [], policyVersion: live.version }, why: 'governed' as const,
    };
    expect(live.decisionFor(request)).toBeUndefined();
    live.replace(createPolicy({ allowedDomains: ['a.example'] }));
    expect(live.decisionFor(request)).toMatchObject({ kind: 'deny', reason: 'policy_changed' });
  });
});

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
    // The same MCP tool on the same server is what was approved, whatever its arguments.
    const again = await run('mcp_call', { server: 'github', tool: 'get_issue', arguments: { number: 2 } });
    expect(again.ok).toBe(true);
    expect(again.receipt.approval).toMatchObject({ how: 'confirm:remembered' });
    expect(prompt).toHaveBeenCalledTimes(2);
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

  test('run_command: approving it with no working directory does not approve it in one', async () => {
    const { prompt, run } = setupTargets('session');
    expect((await run('run_command', { command: ['rm', '-rf', 'build'] })).ok).toBe(true);
    expect((await run('run_command', { command: ['rm', '-rf', 'build'], cwd: '/etc' })).ok).toBe(false);
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

  test('a host is persisted as an exact domain', async () => {
    const { run, persisted } = setupTargets('always');
    expect((await run('http_request', { url: 'https://api.github.com/x' })).ok).toBe(true);
    expect(persisted).toEqual([{ tool: 'http_request', decision: 'allow', source: 'project', reason: 'remembered approval', match: { domain: 'api.github.com' } }]);
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
    const outcome = await registry.dispatch(call(...command(['rm', '-rf', '/home'])), { grantedTools, approval: { confirm: approvals.confirm } });
    expect(outcome.ok).toBe(false);
    expect(prompt).toHaveBeenCalledTimes(1);
    expect(host.calls).toEqual([]);
    const same = await registry.dispatch(call(...command(['rm', '-rf', '*'])), { grantedTools, approval: { confirm: approvals.confirm } });
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
