const MAX_NAME = 64;

/**
 * The toolgate name of an upstream tool: `mcp_{server}_{tool}`, each part
 * NFKC-normalised, lowercased, and every run of characters outside
 * `[a-z0-9_]` turned into one `_` — on ASCII input exactly the policy's
 * translation of Claude Code's `mcp__server__tool`, so rules written either
 * way name the same tool. Clipped to 64 characters, so it always matches
 * `^[a-z][a-z0-9_]{0,63}$`. Two upstream tools that fold to the same name
 * are a collision, refused where it is detected.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp_${fold(server)}_${fold(tool)}`;
  return name.length > MAX_NAME ? name.slice(0, MAX_NAME) : name;
}

function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^a-z0-9_]+/g, '_');
}

const SERVER_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** A server name as configured: it becomes part of tool names, so it is checked, not folded. */
export function isValidServerName(name: unknown): name is string {
  return typeof name === 'string' && SERVER_NAME.test(name) && !name.includes('__');
}
