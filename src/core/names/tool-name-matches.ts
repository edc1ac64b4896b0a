import { claudeCodeToolTargets } from './claude-code-tools.js';

/**
 * Whether a name written in a rule or hook matcher (a Claude Code name or
 * ours) designates our tool `ourName`: `Bash` matches `run_command`, `git_status`
 * and `git_commit`; `mcp__github__create_issue` matches
 * `mcp_github_create_issue`; our own name matches itself. Exact only: an
 * arg-spec (`Bash(git status)`) must be parsed by the caller first and
 * matches nothing here, and case counts (`read` is not `Read`).
 * Aliases are for matching only and never written back into a mask.
 */
export function toolNameMatches(ccOrOurName: string, ourName: string): boolean {
  if (typeof ccOrOurName !== 'string' || typeof ourName !== 'string') return false;
  if (ccOrOurName === ourName) return true;
  return claudeCodeToolTargets(ccOrOurName)?.includes(ourName) ?? false;
}
