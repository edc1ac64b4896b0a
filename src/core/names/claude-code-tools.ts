import { foldMcpNamePart, mcpToolName } from './mcp-tool-name.js';

/**
 * Claude Code tool names → toolgate built-in names, one-to-many where one
 * Claude Code tool covers several of ours: `Read` also reads media, `Bash`
 * is every process-spawning built-in, `Grep` needs file reads and listings.
 * A Claude Code name is translated at the ingestion boundary (agent
 * frontmatter, imported settings) and never compared or restricted raw.
 */
export const CLAUDE_CODE_TOOLS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  Read: Object.freeze(['read_file', 'read_media']),
  Write: Object.freeze(['write_file']),
  Edit: Object.freeze(['edit_file']),
  Bash: Object.freeze(['run_command', 'git_status', 'git_commit']),
  WebFetch: Object.freeze(['http_request']),
  WebSearch: Object.freeze(['web_search']),
  LS: Object.freeze(['list_directory']),
  Glob: Object.freeze(['list_directory']),
  Grep: Object.freeze(['read_file', 'list_directory']),
});

/** Our names for a Claude Code name (`mcp__server__tool` included), or undefined when it is not one. */
export function claudeCodeToolTargets(name: string): readonly string[] | undefined {
  if (Object.hasOwn(CLAUDE_CODE_TOOLS, name)) return CLAUDE_CODE_TOOLS[name];
  const mcp = parseClaudeCodeMcpName(name);
  return mcp === undefined ? undefined : [mcp];
}

const MCP_PREFIX = 'mcp__';

/** `mcp__server__tool`: the server ends at the first `__` after it. */
function parseClaudeCodeMcpName(name: string): string | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const split = name.indexOf('__', MCP_PREFIX.length + 1);
  if (split === -1) return undefined;
  const server = name.slice(MCP_PREFIX.length, split);
  const tool = name.slice(split + 2);
  // A part with no letter or digit (empty, or a wildcard such as `*`) names nothing.
  if (!/[a-z0-9]/.test(foldMcpNamePart(server)) || !/[a-z0-9]/.test(foldMcpNamePart(tool))) return undefined;
  return mcpToolName(server, tool);
}
