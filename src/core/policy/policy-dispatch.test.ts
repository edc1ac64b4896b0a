import { describe, expect, test } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { createFakeHost } from '../../testing/create-fake-host.js';
import { createScriptedApprover } from '../../testing/create-scripted-approver.js';
import { ToolPolicyError } from '../errors/tool-errors.js';
import { createPolicy } from './create-policy.js';
import { guardrailFloor } from './guardrail-floor.js';
import { governedTools } from './__fixtures__/governed-tools.js';

const call = (name: string, args: unknown, callId = `c-${name}`) => ({ callId, name, arguments: args });
const grantedTools = governedTools.map((tool) => tool.name);

function setup(policy = createPolicy({})) {
  const host = createFakeHost({ files: { 'README.md': 'hello' } });
  const registry = createToolRegistry({ tools: governedTools, host, policy });
  return { host, registry };
}

describe('policy through createToolRegistry(...).dispatch', () => {
  test('the registry default is the fail-closed floor, and nothing denied reaches the host', async () => {
    const host = createFakeHost();
    const registry = createToolRegistry({ tools: governedTools, host });
    expect(registry.policy).toBe(guardrailFloor);
    for (const [name, args, reason] of [
      ['run_command', { command: ['ls'] }, 'command_not_allowed'],
      ['http_request', { url: 'https://example.com' }, 'domain_not_allowed'],
      ['write_file', { path: '.git/hooks/pre-commit', content: 'x' }, 'protected_path'],
      ['read_file', { path: '../../etc/passwd' }, 'scope_denied'],
      // A secret is not readable without a person: with no approval regime, a protected read is refused as what it is.
      ['read_file', { path: '.env' }, 'protected_path'],
      ['read_file', { path: 'config/.env.production' }, 'protected_path'],
    ] as const) {
      const outcome = await registry.dispatch(call(name, args), { grantedTools });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect((outcome.error as ToolPolicyError).reason).toBe(reason);
    }
    expect(host.calls).toEqual([]);
  });

  test.each([
    ['chaining as argv', ['git', 'status;', 'rm', '-rf', '/'], 'command_not_allowed'],
    ['env prefix', ['GIT_PAGER=sh', 'git', 'status'], 'command_not_allowed'],
    ['path-qualified', ['/tmp/git', 'status'], 'command_not_allowed'],
    ['git -c under a glob', ['git', '-c', 'core.pager=sh', 'log'], 'command_not_allowed'],
  ])('%s is denied before the host', async (_label, command, reason) => {
    const { host, registry } = setup(createPolicy({ allowedCommands: ['git status'], allowedCommandGlobs: ['git log *'] }));
    const outcome = await registry.dispatch(call('run_command', { command }), { grantedTools });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toBeInstanceOf(ToolPolicyError);
      expect((outcome.error as ToolPolicyError).reason).toBe(reason);
      expect(outcome.error.message).not.toContain('core.pager');
    }
    expect(host.calls).toEqual([]);
  });

  test.each([
    ['env sh -c', ['env', 'sh', '-c', 'id']],
    ['xargs -0 sh -c', ['xargs', '-0', 'sh', '-c', 'id']],
    ['timeout -s KILL 5 sh -c', ['timeout', '-s', 'KILL', '5', 'sh', '-c', 'id']],
    ['awk system()', ['awk', 'BEGIN{system("id")}']],
  ])('under globs, %s is denied before the host', async (_label, command) => {
    const { host, registry } = setup(createPolicy({ allowedCommandGlobs: ['env *', 'xargs *', 'timeout *', 'sh *', 'awk *'] }));
    const outcome = await registry.dispatch(call('run_command', { command }), { grantedTools });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect((outcome.error as ToolPolicyError).reason).toBe('command_not_allowed');
    expect(host.calls).toEqual([]);
  });

  test('an exact entry holding an exec-capable form reaches the host as written', async () => {
    const { host, registry } = setup(createPolicy({ allowedCommands: [['sh', '-c', 'make']] }));
    const outcome = await registry.dispatch(call('run_command', { command: ['sh', '-c', 'make'] }), { grantedTools });
    expect(outcome.ok).toBe(true);
    expect(host.calls.map((entry) => `${entry.capability}.${entry.method}`)).toEqual(['process.spawn']);
  });

  test('an allowed command reaches the host exactly once', async () => {
    const { host, registry } = setup(createPolicy({ allowedCommands: ['git status'] }));
    const outcome = await registry.dispatch(call('run_command', { command: ['git', 'status'] }), { grantedTools });
    expect(outcome.ok).toBe(true);
    expect(host.calls.map((entry) => `${entry.capability}.${entry.method}`)).toEqual(['process.spawn']);
  });

  test('a rule deny names the rule and is recorded in the receipt; no host call', async () => {
    const policy = createPolicy({ allowedDomains: ['api.github.com'], rules: [{ id: 'no-gists', tool: 'http_request', decision: 'deny', source: 'project', match: { domain: 'api.github.com' } }] });
    const { host, registry } = setup(policy);
    const outcome = await registry.dispatch(call('http_request', { url: 'https://api.github.com/gists' }), { grantedTools });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect((outcome.error as ToolPolicyError).ruleId).toBe('no-gists');
    expect(host.calls).toEqual([]);
  });

  test('a protected-path write asks; without an approval regime it is refused, with one the approver sees it', async () => {
    const { host, registry } = setup();
    const refused = await registry.dispatch(call('write_file', { path: '.env', content: 'A=1' }), { grantedTools });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect((refused.error as ToolPolicyError).reason).toBe('protected_path');
    const approver = createScriptedApprover('reject');
    const rejected = await registry.dispatch(call('write_file', { path: '.env', content: 'A=1' }), { grantedTools, approval: { confirm: approver.confirm } });
    expect(rejected.ok).toBe(false);
    expect(approver.requests[0]?.decision).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    expect(host.calls).toEqual([]);
  });

  test('a protected read asks a person; readableProtectedPaths lets one named file be read, and never widens writes', async () => {
    const host = createFakeHost({ files: { '.env.example': 'A=' } });
    const registry = createToolRegistry({ tools: governedTools, host, policy: createPolicy({ readableProtectedPaths: ['.env.example'] }) });
    const approver = createScriptedApprover('reject');
    const context = { grantedTools, approval: { confirm: approver.confirm } };
    const secret = await registry.dispatch(call('read_file', { path: 'app/.env' }), context);
    expect(secret.ok).toBe(false);
    expect(approver.requests[0]?.reasons).toMatchObject({ reason: 'protected_path', protectedPath: true });
    expect(approver.requests[0]?.target?.files[0]).toMatchObject({ path: 'app/.env', flags: ['protected'] });
    const example = await registry.dispatch(call('read_file', { path: '.env.example' }), context);
    expect(example.ok).toBe(true);
    expect(approver.requests).toHaveLength(1);
    expect((await registry.dispatch(call('write_file', { path: '.env.example', content: 'A=1' }), context)).ok).toBe(false);
    expect(approver.requests[1]?.decision).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    expect(host.calls.map((entry) => entry.method)).toEqual(['readFile']);
  });

  test('rate limits refuse with a retry-after and never reach the host', async () => {
    const policy = createPolicy({ rateLimits: { perTool: { read_file: { capacity: 2, refillPerSecond: 0.5 } } } });
    const { host, registry } = setup(policy);
    for (let index = 0; index < 2; index += 1) expect((await registry.dispatch(call('read_file', { path: 'README.md' }, `r${index}`), { grantedTools })).ok).toBe(true);
    const limited = await registry.dispatch(call('read_file', { path: 'README.md' }, 'r3'), { grantedTools });
    expect(limited.ok).toBe(false);
    if (!limited.ok) {
      const error = limited.error as ToolPolicyError;
      expect(error.reason).toBe('rate_limited');
      expect(error.retryable).toBe(true);
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(error.retryAfterMs).toBeLessThanOrEqual(2000);
    }
    expect(host.calls).toHaveLength(2);
  });

  test('every decision records the snapshot version', async () => {
    const policy = createPolicy({ version: 41 });
    const { registry } = setup(policy);
    const seen: unknown[] = [];
    registry.on('policy-decided', (event) => seen.push(event.decision.policyVersion));
    await registry.dispatch(call('read_file', { path: 'README.md' }), { grantedTools });
    expect(seen).toEqual([41, 41]);
  });
});
