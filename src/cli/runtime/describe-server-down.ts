import type { McpServerStatus } from '../../mcp/index.js';

/**
 * A down upstream server as the operator reads it: its name, why, the tail
 * of its stderr (already masked by the MCP layer) indented beneath, and what
 * that means (`consequence`).
 */
export function describeServerDown(status: McpServerStatus, consequence: string): string {
  const lines = [`warning: MCP server "${status.server}" is down: ${status.error ?? 'not started yet'}; ${consequence}`];
  if (status.stderr !== undefined && status.stderr.length > 0) lines.push(`  its stderr ended with:`, ...status.stderr.split('\n').map((line) => `    ${line}`));
  return lines.join('\n');
}
