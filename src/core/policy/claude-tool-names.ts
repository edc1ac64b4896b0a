import { mcpToolName } from '../names/mcp-tool-name.js';

/**
 * Claude Code tool names → toolgate tool names, for policy rules. The names
 * follow the shared map (`src/core/names/claude-code-tools.ts`), widened by
 * Claude Code's rule semantics: an `Edit(...)` rule applies to every tool
 * that edits files (so `write_file` too) and a `Read(...)` rule to every tool
 * that reads them (so listings and searches too) — a deny must not miss one.
 * This is the one place the policy engine translates names.
 */
const CLAUDE_TO_TOOLGATE: Readonly<Record<string, readonly string[]>> = Object.freeze({
  Bash: ['run_command', 'git_status', 'git_commit'],
  Read: ['read_file', 'read_media', 'list_directory'],
  Edit: ['edit_file', 'write_file'],
  MultiEdit: ['edit_file', 'write_file'],
  NotebookEdit: ['edit_file', 'write_file'],
  Write: ['write_file', 'edit_file'],
  Glob: ['list_directory'],
  Grep: ['read_file', 'list_directory'],
  LS: ['list_directory'],
  WebFetch: ['http_request'],
  WebSearch: ['web_search'],
});

/**
 * The catalog tools whose deny and ask rules stand in for an upstream MCP
 * tool's targets: the `Read(…)`, `Write(…)` and `WebFetch(…)` tools, and
 * the one that runs a command a model chose (`Bash(…)` without the tools
 * that run a fixed argv).
 */
export const UPSTREAM_STAND_INS = Object.freeze({
  reads: Object.freeze([...(CLAUDE_TO_TOOLGATE.Read ?? [])]),
  writes: Object.freeze([...(CLAUDE_TO_TOOLGATE.Write ?? [])]),
  fetches: Object.freeze([...(CLAUDE_TO_TOOLGATE.WebFetch ?? [])]),
  runs: Object.freeze(['run_command']),
});

/** A `Read` deny or ask also refuses editing and writing that path: what cannot be read must not be rewritten. */
const READ_DENY_ALSO: readonly string[] = ['edit_file', 'write_file'];

export function toolgateNamesFor(claudeName: string, decision: 'allow' | 'ask' | 'deny' = 'allow'): readonly string[] | undefined {
  if (claudeName === 'Read' && decision !== 'allow') return [...(CLAUDE_TO_TOOLGATE.Read ?? []), ...READ_DENY_ALSO];
  if (Object.hasOwn(CLAUDE_TO_TOOLGATE, claudeName)) return CLAUDE_TO_TOOLGATE[claudeName];
  const mcp = /^mcp__([A-Za-z0-9_-]+?)__([A-Za-z0-9_-]+)$/.exec(claudeName);
  return mcp === null ? undefined : [mcpToolName(mcp[1] ?? '', mcp[2] ?? ''), claudeName];
}

/** Which kind of argument a Claude Code tool's specifier talks about. */
export function claudeSpecifierKind(claudeName: string): 'argv' | 'path' | 'domain' | 'query' | undefined {
  if (claudeName === 'Bash') return 'argv';
  if (['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'Glob', 'Grep', 'LS'].includes(claudeName)) return 'path';
  if (claudeName === 'WebFetch') return 'domain';
  if (claudeName === 'WebSearch') return 'query';
  return undefined;
}
