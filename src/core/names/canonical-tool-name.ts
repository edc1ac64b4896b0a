import { CLAUDE_CODE_TOOLS } from './claude-code-tools.js';

// Our name → the first Claude Code name that covers it (Read before Grep, LS before Glob).
const toClaudeCode = new Map<string, string>();
for (const [claudeCode, ours] of Object.entries(CLAUDE_CODE_TOOLS)) {
  for (const name of ours) if (!toClaudeCode.has(name)) toClaudeCode.set(name, claudeCode);
}

/**
 * The Claude Code name for a Claude-Code-facing payload (e.g. a hook's
 * `tool_name`): `read_file` → `Read`, `run_command` → `Bash`. A name with no
 * Claude Code alias (including `mcp_*` names, whose server/tool split cannot
 * be recovered) is returned unchanged.
 */
export function canonicalToolName(name: string): string {
  return toClaudeCode.get(name) ?? name;
}
