import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createPolicy } from '../../core/policy/create-policy.js';
import { loadClaudeSettings } from './load-claude-settings.js';
import { loadGeminiPolicies } from './load-gemini-policies.js';

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const locations = { projectRoot: join(fixtures, 'project'), home: join(fixtures, 'home') };

describe('Claude Code settings importer (golden)', () => {
  test('every scope, with warnings naming each lossy rule', async () => {
    const imported = await loadClaudeSettings({ ...locations, managedFile: join(fixtures, 'managed-settings.json') });
    const relative = JSON.parse(JSON.stringify(imported).replaceAll(fixtures, '<fixtures>/'));
    await expect(JSON.stringify(relative, null, 2) + '\n').toMatchFileSnapshot('./__fixtures__/claude.golden.json');
  });

  test('the imported rules load and keep Claude Code semantics', async () => {
    const imported = await loadClaudeSettings({ ...locations, managedFile: join(fixtures, 'managed-settings.json') });
    expect(imported.mode).toBe('auto');
    expect(imported.managed).toEqual({ disableAutoMode: true });
    const policy = createPolicy({ rules: imported.rules, allowedCommandGlobs: ['*'], allowedDomains: ['api.github.com', 'pastebin.com', 'x.pastebin.com'], managed: imported.managed, ...(imported.mode === undefined ? {} : { mode: imported.mode }) });
    const decide = (tool: string, target: Record<string, unknown>) => policy.explain({ tool, target }).decision.kind;
    expect(decide('run_command', { command: 'npm run test -- --watch' })).toBe('allow');
    expect(decide('run_command', { command: 'git push origin main' })).toBe('ask');
    expect(decide('run_command', { command: 'rm -rf node_modules' })).toBe('deny');
    expect(decide('run_command', { command: 'sudo ls' })).toBe('deny');
    expect(decide('http_request', { url: 'https://pastebin.com/raw/x' })).toBe('deny');
    expect(decide('http_request', { url: 'https://x.pastebin.com/raw/x' })).toBe('deny');
    expect(decide('read_file', { path: '.env' })).toBe('deny');
    expect(decide('read_file', { path: 'src/index.ts' })).toBe('allow');
    expect(decide('read_file', { path: join(locations.home, '.ssh/id_ed25519') })).toBe('deny');
  });
});

describe('Gemini CLI policy importer (golden)', () => {
  test('tiers, priorities, commandPrefix and argsPattern', async () => {
    const imported = await loadGeminiPolicies({ ...locations, systemDir: join(fixtures, 'system-gemini') });
    const relative = JSON.parse(JSON.stringify(imported).replaceAll(fixtures, '<fixtures>/'));
    await expect(JSON.stringify(relative, null, 2) + '\n').toMatchFileSnapshot('./__fixtures__/gemini.golden.json');
  });

  test('the imported rules load and keep Gemini CLI precedence', async () => {
    const imported = await loadGeminiPolicies({ ...locations, systemDir: join(fixtures, 'system-gemini') });
    const policy = createPolicy({ rules: imported.rules, allowedCommandGlobs: ['*'], allowedDomains: ['internal.corp.example', 'docs.example'], mcpServers: ['github'] });
    const explain = (tool: string, target: Record<string, unknown>, args: unknown = {}) => policy.explain({ tool, target, args });
    expect(explain('run_command', { command: 'git status' }).decision.kind).toBe('allow');
    // Gemini CLI's commandPrefix ends at a space or the end of the command: `git statusx` and `rm -rfv` are
    // other commands, which no rule names, so the governed default (an approval) applies to them.
    expect(explain('run_command', { command: 'git statusx' }).rules).toEqual([]);
    expect(explain('run_command', { command: 'rm -rf /' }).decision.kind).toBe('deny');
    expect(explain('run_command', { command: 'rm -rfv /' }).rules).toEqual([]);
    expect(explain('run_command', { command: 'git push' }).decision.kind).toBe('ask');
    // `commandRegex = "^npm …"`: Gemini CLI puts it after `"command":"`, where `^` can never match, so no rule applies.
    expect(explain('run_command', { command: 'npm install left-pad' }, { command: 'npm install left-pad' }).rules).toEqual([]);
    const internal = explain('http_request', { url: 'https://internal.corp.example/x' }, { url: 'https://internal.corp.example/x' });
    // Gemini CLI precedence: the admin tier's ask outranks the workspace tier's deny (both matched, both reported).
    expect(internal.decision.kind).toBe('ask');
    expect(internal.rules.map((rule) => [rule.source, rule.decision, rule.winner])).toEqual([
      ['managed', 'ask', true],
      ['project', 'deny', false],
    ]);
    // The workspace deny's argsPattern names Gemini CLI's web_fetch arguments, which toolgate cannot read: it denies every fetch.
    expect(explain('http_request', { url: 'https://docs.example/x' }, { url: 'https://docs.example/x' }).rules.map((rule) => rule.decision)).toEqual(['ask', 'deny']);
    // The user tier's server-wide ask outranks the workspace tier's tool deny, as in Gemini CLI.
    const mcp = explain('mcp_github_delete_repo', { server: 'github' });
    expect(mcp.decision.kind).toBe('ask');
    expect(mcp.rules.map((rule) => rule.decision)).toEqual(['ask', 'deny']);
  });
});
