import { describe, expect, test } from 'vitest';
import { createPolicy } from './create-policy.js';
import { toolView } from './__fixtures__/tool-views.js';

const policy = createPolicy({
  version: 7,
  mode: 'accept-edits',
  allowedCommandGlobs: ['*'],
  allowedDomains: ['api.github.com'],
  rules: [
    { id: 'tests', rule: 'Bash(npm run test:*)', decision: 'allow', source: 'project', reason: 'CI parity' },
    { id: 'no-curl', rule: 'Bash(curl:*)', decision: 'deny', source: 'managed' },
    { id: 'push', rule: 'Bash(git push:*)', decision: 'ask', source: 'user' },
    { id: 'push-ok', rule: 'Bash(git push:*)', decision: 'allow', source: 'user' },
    { id: 'gh', rule: 'WebFetch(domain:api.github.com)', decision: 'allow', source: 'cli' },
  ],
});

describe('explain(call)', () => {
  test('decision, matched rules with sources, the argv considered and the mode', () => {
    const explanation = policy.explain({ tool: 'run_command', target: { command: '  git push  origin ' } });
    expect(explanation.decision).toMatchObject({ kind: 'ask', policyVersion: 7 });
    expect(explanation.version).toBe(7);
    expect(explanation.mode).toBe('accept-edits');
    expect(explanation.considered).toEqual({ argv: ['git', 'push', 'origin'] });
    expect(explanation.rules.map((rule) => [rule.id, rule.source, rule.decision, rule.winner])).toEqual([
      ['push', 'user', 'ask', true],
      ['push-ok', 'user', 'allow', false],
    ]);
  });

  test('a guardrail denial is reported as such, with no rule', () => {
    const explanation = policy.explain({ tool: 'http_request', target: { url: 'https://API.GitHub.com.:444/x' } });
    expect(explanation.decision.kind).toBe('allow');
    expect(explanation.considered.host).toBe('api.github.com');
    const refused = policy.explain({ tool: 'http_request', target: { url: 'http://api.github.com/x' } });
    expect(refused.guardrail).toEqual({ reason: 'insecure_url', detail: 'was refused: only https URLs are allowed' });
    expect(refused.rules).toEqual([]);
  });

  test('a managed deny, the paths considered, notes on defaults', () => {
    expect(policy.explain({ tool: 'run_command', target: { command: 'curl x' } }).rules[0]).toMatchObject({ id: 'no-curl', band: 'managed', winner: true });
    const write = policy.explain({ tool: toolView('write'), target: { path: 'src/../.git/config' } });
    expect(write.considered.paths).toEqual(['.git/config']);
    expect(write.decision).toMatchObject({ kind: 'ask', reason: 'protected_path' });
    expect(write.notes.join(' ')).toContain('protected path');
    const read = policy.explain({ tool: 'read_file', target: { path: 'README.md' } });
    expect(read.notes.join(' ')).toContain('read-only tools allow');
  });

  test('explain takes no rate-limit token', () => {
    const limited = createPolicy({ rateLimits: { perAgent: { '*': { capacity: 1, refillPerSecond: 0 } } } });
    for (let index = 0; index < 5; index += 1) expect(limited.explain({ tool: 'read_file', target: { path: 'a' } }).decision.kind).toBe('allow');
    const input = { tool: toolView('read'), agent: 'a1', args: {}, target: { path: 'a' }, gateApproved: false };
    expect(limited.decideArguments(input).kind).toBe('allow');
    expect(limited.decideArguments(input)).toMatchObject({ kind: 'deny', reason: 'rate_limited', retryAfterMs: Number.MAX_SAFE_INTEGER });
    expect(limited.recheck(input).kind).toBe('allow');
  });

  test('messages and details never hold argument values', () => {
    const secret = 'ghp_' + 'S'.repeat(36);
    const decision = policy.decideArguments({ tool: toolView('command'), agent: undefined, args: {}, target: { command: `curl ${secret}` }, gateApproved: false });
    expect(JSON.stringify(decision)).not.toContain(secret);
  });
});
