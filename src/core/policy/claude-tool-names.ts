import { CLAUDE_CODE_TOOLS, claudeCodeToolTargets } from '../names/claude-code-tools.js';

/**
 * Claude Code tool names → toolgate tool names, for policy rules. The names
 * follow the shared map (`src/core/names/claude-code-tools.ts`), widened by
 * Claude Code's rule semantics: an `Edit(...)` rule applies to every tool
 * that edits files (so `write_file` too) and a `Read(...)` rule to every tool
 * that reads them (so listings and searches too) — a deny must not miss one.
 * This is the one place the policy engine translates names.
 */
const EDITS: readonly string[] = Object.freeze([...(CLAUDE_CODE_TOOLS.Edit ?? []), 'write_file']);
const CLAUDE_TO_TOOLGATE: Readonly<Record<string, readonly string[]>> = Object.freeze({
  ...CLAUDE_CODE_TOOLS,
  Read: Object.freeze([...(CLAUDE_CODE_TOOLS.Read ?? []), 'list_directory']),
  Edit: EDITS,
  MultiEdit: EDITS,
  NotebookEdit: EDITS,
  Write: Object.freeze([...(CLAUDE_CODE_TOOLS.Write ?? []), 'edit_file']),
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
  // `mcp__server__tool`, read as the name translator reads it; the raw name too, for a tool registered under it.
  const mcp = claudeName.startsWith('mcp__') ? claudeCodeToolTargets(claudeName) : undefined;
  return mcp === undefined ? undefined : [...mcp, claudeName];
}

/** The Claude Code tools whose names the policy translates. */
export function claudeToolNames(): readonly string[] {
  return Object.keys(CLAUDE_TO_TOOLGATE);
}

/** The Claude Code tool a name spells in another case (`bash`, `READ`), or undefined when it spells none or is exact. */
export function claudeToolInOtherCase(name: string): string | undefined {
  const lower = name.toLowerCase();
  return Object.keys(CLAUDE_TO_TOOLGATE).find((known) => known !== name && known.toLowerCase() === lower);
}

/** Which kind of argument a Claude Code tool's specifier talks about. */
export function claudeSpecifierKind(claudeName: string): 'argv' | 'path' | 'domain' | 'query' | undefined {
  if (claudeName === 'Bash') return 'argv';
  if (['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'Glob', 'Grep', 'LS'].includes(claudeName)) return 'path';
  if (claudeName === 'WebFetch') return 'domain';
  if (claudeName === 'WebSearch') return 'query';
  return undefined;
}
