/** The longest toolgate name of an MCP tool: a longer one is clipped. */
export const MAX_MCP_TOOL_NAME = 64;

/**
 * The toolgate name of an upstream MCP tool: `mcp_{server}_{tool}`, each part
 * NFKC-normalised, lowercased, and every run of characters outside
 * `[a-z0-9_]` turned into one `_`; clipped to 64 characters, so it always
 * matches `^[a-z][a-z0-9_]{0,63}$`. The one naming: discovered tools, policy
 * rules written as Claude Code's `mcp__server__tool`, Claude Code name
 * translation and `mcp_call`'s target all use it, so a rule names exactly
 * the tool a call reaches. Two upstream tools that fold to the same name are
 * a collision, refused where it is detected.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp_${foldMcpNamePart(server)}_${foldMcpNamePart(tool)}`;
  return name.length > MAX_MCP_TOOL_NAME ? name.slice(0, MAX_MCP_TOOL_NAME) : name;
}

/** One part of an MCP tool name as it appears in `mcpToolName`. */
export function foldMcpNamePart(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^a-z0-9_]+/g, '_');
}
