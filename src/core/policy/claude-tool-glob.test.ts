import { describe, expect, test } from 'vitest';
import { mcpToolName } from '../names/mcp-tool-name.js';
import { claudeMcpToolGlob, claudeToolGlob } from './claude-tool-glob.js';

describe('claudeMcpToolGlob', () => {
  test.each([
    ['mcp__github__get_*', 'github', 'get_issue', true],
    ['mcp__github__get_*', 'github', 'getter', false],
    ['mcp__github__get_*', 'gitlab', 'get_issue', false],
    ['mcp__*__drop*', 'jira', 'drop_project', true],
    ['mcp__*__drop*', 'jira', 'create_issue', false],
    // The folded name does not say where the server ends: `jira` / `create_drop` is also `jira_create` / `drop`.
    ['mcp__*__drop*', 'jira', 'create_drop', true],
    ['mcp__ops-prod__apply-*', 'ops-prod', 'apply-change', true],
    ['mcp__ops-*__apply', 'ops--x', 'apply', true],
    ['mcp__a-*-b__t', 'a--b', 't', true],
    ['mcp__gith*', 'github', 'x', true],
    ['mcp__GitHub__Delete_*', 'github', 'delete_repo', true],
  ])('%s over the tool %s/%s → %s', (glob, server, tool, expected) => {
    expect(claudeMcpToolGlob(glob)?.(mcpToolName(server, tool))).toBe(expected);
  });

  test('a name clipped to 64 characters is matched by the leading part', () => {
    const name = mcpToolName('ops', `apply_${'x'.repeat(80)}_prod`);
    expect(name).toHaveLength(64);
    expect(claudeMcpToolGlob('mcp__ops__apply_*_prod')?.(name)).toBe(true);
  });

  test('only MCP tool names are covered', () => {
    expect(claudeMcpToolGlob('mcp__*')?.('read_file')).toBe(false);
  });

  test('a glob holding a character no tool name has is not read', () => {
    expect(claudeMcpToolGlob('mcp__a.b__*')).toBeUndefined();
  });

  test('a glob of many wildcards costs a name its length times the glob', () => {
    const matches = claudeMcpToolGlob(`mcp__${'*_'.repeat(200)}x`);
    const started = performance.now();
    expect(matches?.(`mcp_${'_'.repeat(59)}`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('claudeToolGlob', () => {
  const BUILT_IN = ['run_command', 'git_status', 'git_commit', 'read_file', 'read_media', 'list_directory', 'edit_file', 'write_file', 'http_request', 'web_search', 'mcp_call'];
  test.each([
    ['B*', 'deny', ['run_command', 'git_status', 'git_commit']],
    ['Web*', 'ask', ['http_request', 'web_search']],
    ['*Edit', 'deny', ['edit_file', 'write_file']],
    ['Rea*', 'deny', ['read_file', 'read_media', 'list_directory', 'edit_file', 'write_file']],
    ['bash*', 'deny', ['run_command', 'git_status', 'git_commit']],
    ['Tas*', 'deny', []],
  ] as const)('%s (%s) covers %j of the built-in tools', (glob, decision, covered) => {
    const matches = claudeToolGlob(glob, decision);
    expect(BUILT_IN.filter((name) => matches?.(name) === true)).toEqual(covered);
  });

  test('a glob that can match an MCP name covers the MCP tools it matches', () => {
    expect(claudeToolGlob('*delete*', 'deny')?.(mcpToolName('github', 'delete_repo'))).toBe(true);
    expect(claudeToolGlob('*delete*', 'deny')?.(mcpToolName('github', 'list_repos'))).toBe(false);
    expect(claudeToolGlob('B*', 'deny')?.(mcpToolName('bash', 'run'))).toBe(false);
  });
});
