import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { approvalRequest } from '../../core/policy/__fixtures__/approval-request.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ConfigurationError } from '../../core/errors/tool-errors.js';
import { createConfirm } from '../../core/policy/create-confirm.js';
import { createPolicy } from '../../core/policy/create-policy.js';
import { PolicyRuleError } from '../../core/policy/policy-rule-error.js';
import type { ToolApprovalRequest } from '../../core/policy/approval-types.js';
import { appendPolicyRule, createRulePersister, policyFilePaths, readPolicyFile } from './policy-file.js';
import { loadClaudeSettings } from './load-claude-settings.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-policy-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('policy files', () => {
  test('a missing file is empty; appended rules round-trip and load', async () => {
    const file = join(dir, 'nested', 'policy.json');
    expect(await readPolicyFile(file)).toEqual({ rules: [] });
    await appendPolicyRule(file, { tool: 'run_command', decision: 'allow', source: 'project', match: { argv: ['npm', 'test'] } });
    await appendPolicyRule(file, { tool: 'http_request', decision: 'allow', source: 'project', match: { domain: 'api.github.com' } });
    const loaded = await readPolicyFile(file);
    expect(loaded.rules).toHaveLength(2);
    expect(createPolicy({ rules: loaded.rules, allowedCommands: ['npm test'] }).explain({ tool: 'run_command', target: { command: 'npm test' } }).rules).toHaveLength(1);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  test('a bad rule is never written, and a malformed file refuses to load', async () => {
    const file = join(dir, 'policy.json');
    await expect(appendPolicyRule(file, { tool: 'run_command', decision: 'allow', source: 'project', match: { argv: [] } })).rejects.toBeInstanceOf(PolicyRuleError);
    await expect(readFile(file, 'utf8')).rejects.toThrow();
    await writeFile(file, '{ "rules": [ oops');
    await expect(readPolicyFile(file)).rejects.toBeInstanceOf(ConfigurationError);
    await writeFile(file, '{ "allow": [] }');
    await expect(readPolicyFile(file)).rejects.toBeInstanceOf(ConfigurationError);
  });

  test('concurrent always-approvals from createConfirm all land in the project file', async () => {
    const persister = createRulePersister({ projectRoot: dir, home: join(dir, 'home') });
    const approvals = createConfirm({ mode: 'ask', prompt: async () => ({ outcome: 'approve', scope: 'always' }), remember: persister });
    const request = (command: string): ToolApprovalRequest => approvalRequest({ callId: command, toolName: 'run_command', action: 'process', target: { command }, actionDigest: 'd' });
    await Promise.all(['npm test', 'npm run lint', 'git status'].map((command) => approvals.confirm(request(command))));
    const rules = (await readPolicyFile(policyFilePaths({ projectRoot: dir, home: join(dir, 'home') }).project)).rules;
    expect(rules.map((rule) => ('match' in rule && rule.match !== undefined && 'argv' in rule.match ? rule.match.argv : undefined))).toEqual([
      ['npm', 'test'],
      ['npm', 'run', 'lint'],
      ['git', 'status'],
    ]);
  });

  test('a Claude Code settings file that exists but is broken refuses to load', async () => {
    await mkdir(join(dir, '.claude'), { recursive: true });
    await writeFile(join(dir, '.claude', 'settings.json'), '{ "permissions": { "deny": [ "Bash(curl:*)" ');
    await expect(loadClaudeSettings({ projectRoot: dir, home: join(dir, 'home'), managedFile: join(dir, 'none.json') })).rejects.toBeInstanceOf(ConfigurationError);
  });
});
