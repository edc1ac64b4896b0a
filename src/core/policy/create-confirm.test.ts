import { describe, expect, test, vi } from 'vitest';
import { approvalRequest } from './__fixtures__/approval-request.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { createFakeHost } from '../../testing/create-fake-host.js';
import { ToolDeniedByUserError } from '../errors/tool-errors.js';
import type { ToolApprovalDecision } from './approval-types.js';
import { createConfirm, type PromptHook } from './create-confirm.js';
import { createLivePolicy } from './create-live-policy.js';
import { createPolicy } from './create-policy.js';
import type { ApprovalMode, CreatePolicyOptions } from './policy-snapshot-types.js';
import type { PolicyRuleObject } from './rule-types.js';
import { governedTools } from './__fixtures__/governed-tools.js';

const grantedTools = governedTools.map((tool) => tool.name);
let counter = 0;
const call = (name: string, args: unknown) => ({ callId: `c${(counter += 1)}`, name, arguments: args });

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
    await run(...fetchUrl('https://api.github.com/a'));
    expect(prompt).toHaveBeenCalledTimes(1);
    approvals.setMode('plan');
    expect((await run(...fetchUrl('https://api.github.com/a'))).ok).toBe(false);
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
    const request = approvalRequest({
      callId: 'x', toolName: 'http_request', action: 'egress', target: { url: 'https://a.example/' }, actionDigest: 'd',
      decision: { kind: 'allow', matched: [], policyVersion: live.version },
    });
    expect(live.decisionFor(request)).toBeUndefined();
    live.replace(createPolicy({ allowedDomains: ['a.example'] }));
    expect(live.decisionFor(request)).toMatchObject({ kind: 'deny', reason: 'policy_changed' });
  });
});

describe('confirmWith: the same mode logic, another person', () => {
  const elsewhere = (answer: ToolApprovalDecision = { outcome: 'approve' }) => vi.fn<PromptHook>(async () => answer);
  function channel(mode: ApprovalMode, other: PromptHook, options: CreatePolicyOptions = {}) {
    const base = setup(mode, options);
    const registry = createToolRegistry({ tools: governedTools, host: base.host, policy: base.policy });
    const viaOther = (name: string, args: unknown) => registry.dispatch(call(name, args), { grantedTools, approval: { confirm: base.approvals.confirmWith(other) } });
    return { ...base, viaOther };
  }

  test('plan mode refuses before the other person is asked, whatever they would answer', async () => {
    const other = elsewhere();
    const { viaOther, prompt, host } = channel('plan', other);
    const outcome = await viaOther(...write('src/a.ts'));
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.error.message).toContain('plan mode');
    expect(other).not.toHaveBeenCalled();
    expect(prompt).not.toHaveBeenCalled();
    expect(host.calls).toEqual([]);
  });

  test('accept-edits approves an unprotected workspace edit without asking; a protected path always reaches the other person', async () => {
    const other = elsewhere({ outcome: 'reject', reason: 'no' });
    const { viaOther, prompt } = channel('accept-edits', other);
    expect((await viaOther(...write('src/a.ts'))).ok).toBe(true);
    expect(other).not.toHaveBeenCalled();
    expect((await viaOther(...write('.env'))).ok).toBe(false);
    expect(other).toHaveBeenCalledTimes(1);
    expect(other.mock.calls[0]?.[1]).toMatchObject({ mode: 'accept-edits', protectedPath: true, reason: 'protected_path' });
    expect(prompt).not.toHaveBeenCalled();
  });

  test('in ask mode the other person is asked instead of the prompt, and a session approval is remembered for both', async () => {
    const other = elsewhere({ outcome: 'approve', scope: 'session' });
    const { viaOther, run, prompt } = channel('ask', other);
    expect((await viaOther(...command(['git', 'status']))).ok).toBe(true);
    expect(other).toHaveBeenCalledTimes(1);
    expect(prompt).not.toHaveBeenCalled();
    expect((await run(...command(['git', 'status']))).ok).toBe(true);
    expect(prompt).not.toHaveBeenCalled();
  });

  test('the live policy is re-checked after the other person approves', async () => {
    // While the other person looks, the policy is narrowed: the domain is no longer allowed.
    const other = vi.fn<PromptHook>(async () => {
      built.policy.replace(createPolicy({ scope: { tier: 'workspace-write', roots: ['/work/repo'] } }));
      return { outcome: 'approve' };
    });
    const built = channel('ask', other);
    const outcome = await built.viaOther(...fetchUrl('https://api.github.com/x'));
    expect(other).toHaveBeenCalledTimes(1);
    expect(outcome.ok ? '' : outcome.error.message).toContain('the policy changed while the approval was pending');
    expect(built.host.calls).toEqual([]);
  });

  test('a rule the persister wrote approves without asking, except on a protected path', async () => {
    const policy = createLivePolicy(
      createPolicy({
        scope: { tier: 'workspace-write', roots: ['/work/repo'] },
        rules: [
          { id: 'remembered:1', tool: 'write_file', decision: 'allow', source: 'project', match: { path: './src/a.ts' } },
          { id: 'remembered:2', tool: 'write_file', decision: 'allow', source: 'project', match: { path: './.env' } },
        ],
      }),
    );
    const prompt = vi.fn<PromptHook>(async () => ({ outcome: 'reject' }));
    const approvals = createConfirm({ mode: 'ask', prompt, policy, remember: { persist: async () => undefined, persisted: (rule) => rule.id.startsWith('remembered:') } });
    const registry = createToolRegistry({ tools: governedTools, host: createFakeHost(), policy });
    const nobody = vi.fn<PromptHook>(async () => ({ outcome: 'reject', noApprover: true, reason: 'nobody can be asked' }));
    const go = (path: string) => registry.dispatch(call(...write(path)), { grantedTools, approval: { confirm: approvals.confirmWith(nobody) } });
    expect((await go('src/a.ts')).ok).toBe(true);
    expect(nobody).not.toHaveBeenCalled();
    const refused = await go('.env');
    expect(nobody).toHaveBeenCalledTimes(1);
    expect(refused.ok ? undefined : refused.error).toMatchObject({ code: 'DENIED_BY_USER', reason: 'no_approval_hook', label: 'nobody can be asked' });
    expect(prompt).not.toHaveBeenCalled();
  });

  test('refuses a prompt that is not a function', () => {
    const { approvals } = setup('ask');
    expect(() => approvals.confirmWith(undefined as unknown as PromptHook)).toThrow('prompt');
  });
});
