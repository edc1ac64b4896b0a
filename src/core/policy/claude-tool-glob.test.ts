import { describe, expect, test } from 'vitest';
import { mcpToolName } from '../names/mcp-tool-name.js';
import { claudeMcpToolGlob } from './claude-tool-glob.js';

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
