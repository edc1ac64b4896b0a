import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createToolRegistry, defineTool, type PolicyDecision, type ToolPolicy } from '../core/internal.js';
import { buildUpstreamTool } from './build-upstream-tool.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { UpstreamEntry } from './discover-server-tools.js';
import { createMcpCallGuard } from './guard-mcp-call.js';
import type { McpServerConfig } from './mcp-types.js';

// The reference filesystem server: toolgate ships where `read_text_file`'s path is; `get_status` has no target.
const config: McpServerConfig = { name: 'fs', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], cwd: '/work/repo' };
const readText: Tool = { name: 'read_text_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };
const status: Tool = { name: 'get_status', inputSchema: { type: 'object' } };

function offered(tool: Tool): UpstreamEntry {
  const name = `mcp_fs_${tool.name}`;
  const definition = buildUpstreamTool({ server: config, tool, name, description: `The ${tool.name} tool.` });
  return { server: 'fs', tool, name, digest: 'd', status: 'offered', reason: undefined, pinnedDigest: undefined, approved: undefined, definition };
}

const server: UpstreamServer = { config, client: {} as Client, stderr: { text: () => '' }, entries: new Map([readText, status].map((tool) => [tool.name, offered(tool)])) };
const allow: PolicyDecision = { kind: 'allow', matched: [] };
const allowAll: ToolPolicy = { version: 1, decideIdentity: () => allow, decideArguments: () => allow };

/** A tool that reaches upstream tools by server and tool name, registered as `name`, declaring it or not. */
function relay(name: string, declared: boolean) {
  return defineTool({
    name,
    description: 'Calls a tool on a configured MCP server.',
    input: { type: 'object', properties: { server: { type: 'string' }, tool: { type: 'string' }, arguments: { type: 'object' } }, required: ['server', 'tool'] },
    policy: { egress: 'mcp' },
    ...(declared ? { delegatesTo: 'mcp' as const } : {}),
    dispatch: () => 'reached',
  });
}

function dispatchThrough(name: string, declared: boolean, tool: string) {
  const registry = createToolRegistry({ tools: [relay(name, declared)], policy: allowAll, hooks: { guards: [createMcpCallGuard(new Map([['fs', server]]))] } });
  return registry.dispatch({ callId: 'c', name, arguments: { server: 'fs', tool, arguments: { path: '.env' } } }, { grantedTools: [name] });
}

describe('createMcpCallGuard', () => {
  it('refuses a delegating tool under another name to an upstream tool with argument targets, as it refuses mcp_call', async () => {
    for (const name of ['mcp_call', 'reach_upstream']) {
      const outcome = await dispatchThrough(name, true, 'read_text_file');
      expect(outcome.ok ? 'OK' : outcome.error, name).toMatchObject({ code: 'POLICY_DENIED', reason: 'guard_denied' });
      expect(outcome.ok ? '' : outcome.error.message, name).toContain('only when it is called as mcp_fs_read_text_file');
    }
  });

  it('lets a delegating call to an upstream tool without targets through', async () => {
    expect(await dispatchThrough('reach_upstream', true, 'get_status')).toMatchObject({ ok: true, value: 'reached' });
  });

  it('goes by the declaration, not the name: a tool that only bears the name mcp_call is not its business', async () => {
    expect(await dispatchThrough('mcp_call', false, 'read_text_file')).toMatchObject({ ok: true, value: 'reached' });
  });
});
