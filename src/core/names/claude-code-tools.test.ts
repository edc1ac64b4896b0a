import { describe, expect, it } from 'vitest';
import { CLAUDE_CODE_TOOLS, claudeCodeToolTargets } from './claude-code-tools.js';
import { mcpToolName } from './mcp-tool-name.js';
import { canonicalToolName } from './canonical-tool-name.js';
import { toolNameMatches } from './tool-name-matches.js';

const BUILTINS = ['read_file', 'write_file', 'edit_file', 'list_directory', 'run_command', 'git_status', 'git_commit', 'http_request', 'web_search', 'read_clipboard', 'notify', 'mcp_call', 'invoke_agent', 'read_media'];

describe('Claude Code tool names', () => {
  it('maps exactly the Claude Code file, shell and web tools, onto built-in names only', () => {
    expect(Object.keys(CLAUDE_CODE_TOOLS).sort()).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'LS', 'Read', 'WebFetch', 'WebSearch', 'Write']);
    for (const targets of Object.values(CLAUDE_CODE_TOOLS)) for (const target of targets) expect(BUILTINS).toContain(target);
    expect(Object.isFrozen(CLAUDE_CODE_TOOLS)).toBe(true);
    expect(Object.isFrozen(CLAUDE_CODE_TOOLS.Read)).toBe(true);
  });

  it('never resolves prototype keys', () => {
    expect(claudeCodeToolTargets('constructor')).toBeUndefined();
    expect(claudeCodeToolTargets('__proto__')).toBeUndefined();
  });

  it('translates mcp__server__tool with the one MCP naming, and refuses parts that name nothing', () => {
    expect(claudeCodeToolTargets('mcp__GitHub__create-issue')).toEqual(['mcp_github_create_issue']);
    expect(claudeCodeToolTargets('mcp__a__b__c')).toEqual(['mcp_a_b__c']);
    expect(claudeCodeToolTargets('mcp__s__*')).toBeUndefined();
    expect(claudeCodeToolTargets('mcp__-__x')).toBeUndefined();
    // Clipped as a discovered tool's name is, so the two name the same tool.
    const long = `mcp__server__${'x'.repeat(80)}`;
    expect(claudeCodeToolTargets(long)).toEqual([mcpToolName('server', 'x'.repeat(80))]);
    expect(claudeCodeToolTargets(long)?.[0]).toHaveLength(64);
  });

  it('toolNameMatches compares a Claude Code or our name against every alias of ours', () => {
    expect(toolNameMatches('Bash', 'run_command')).toBe(true);
    expect(toolNameMatches('Bash', 'git_commit')).toBe(true);
    expect(toolNameMatches('run_command', 'run_command')).toBe(true);
    expect(toolNameMatches('Read', 'read_media')).toBe(true);
    expect(toolNameMatches('mcp__github__create_issue', 'mcp_github_create_issue')).toBe(true);
    expect(toolNameMatches('Read', 'write_file')).toBe(false);
    expect(toolNameMatches('read', 'read_file')).toBe(false);
    expect(toolNameMatches('Bash(git status)', 'run_command')).toBe(false);
    expect(toolNameMatches('run_command', 'Bash')).toBe(false);
    expect(toolNameMatches(undefined as unknown as string, 'read_file')).toBe(false);
  });

  it('canonicalToolName gives the Claude Code name, or the input when there is none', () => {
    expect(canonicalToolName('read_file')).toBe('Read');
    expect(canonicalToolName('read_media')).toBe('Read');
    expect(canonicalToolName('list_directory')).toBe('LS');
    expect(canonicalToolName('git_status')).toBe('Bash');
    expect(canonicalToolName('http_request')).toBe('WebFetch');
    expect(canonicalToolName('notify')).toBe('notify');
    expect(canonicalToolName('mcp_github_create_issue')).toBe('mcp_github_create_issue');
    expect(canonicalToolName('Read')).toBe('Read');
    expect(canonicalToolName('__proto__')).toBe('__proto__');
  });
});
