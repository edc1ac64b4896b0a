import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpToolName, ToolPolicyError, type AnyToolDefinition, type McpCallInput, type McpCapability, type ToolgateError } from '../core/internal.js';
import type { StderrTail } from './create-stderr-tail.js';
import type { Emit, UpstreamEntry } from './discover-server-tools.js';
import { hasArgumentTargets, targetsJudgedByName } from './guard-mcp-call.js';
import { McpToolError } from './mcp-tool-error.js';
import type { McpServerConfig } from './mcp-types.js';
import { isValidServerName } from './is-valid-server-name.js';
import { scanHiddenCharacters, scanHiddenInValue } from './scan-hidden-characters.js';
import { waitForRelisting } from './wait-for-relisting.js';

// Loaded with the first call to an upstream, and the MCP SDK's message types with it: a process that connects no
// server starts without them.
let callUpstream: (typeof import('./call-upstream.js'))['callUpstream'] | undefined;

export interface UpstreamServer {
  readonly config: McpServerConfig;
  readonly client: Client;
  /** The newest lines of its stderr: what it said before it stopped. */
  readonly stderr: StderrTail;
  /** Keyed by the upstream tool name. Replaced wholesale on each refresh. */
  entries: ReadonlyMap<string, UpstreamEntry>;
  /** The listing the server asked for by saying its tools changed, until it settles (it never rejects). */
  relisting?: Promise<void> | undefined;
}

export interface CreateMcpCapabilityOptions {
  readonly servers: ReadonlyMap<string, UpstreamServer>;
  readonly emit: Emit;
  readonly withheldError: (entry: UpstreamEntry) => ToolgateError;
  /** Why a configured server that is not up now refuses the call (`label` is the tool name the call used). */
  readonly downError: (server: string, label: string) => ToolgateError | undefined;
  /** Whether a definition is offered now: one left out because another server's tool holds its name is not (`collectOfferedTools`). */
  readonly serves: (definition: AnyToolDefinition) => boolean;
}

/**
 * `host.mcp`: the only path to an upstream. It calls only configured
 * servers and only tools that are offered now — a withheld (changed or
 * unapproved) definition is refused with `definition_withheld` whichever
 * way the call arrives (a discovered tool of an older snapshot, `mcp_call`).
 * A tool with argument targets is reached only through its own definition,
 * which the policy judged by them: `mcp_call` to it is refused. A server
 * that said its tools changed is called once they are listed again.
 * Results are scanned for hidden characters; `isError` becomes a typed error.
 */
export function createMcpCapability(options: CreateMcpCapabilityOptions): McpCapability {
  return {
    async call(input: McpCallInput, signal?: AbortSignal): Promise<CallToolResult> {
      // Before the checks, not between them and the send: nothing may change what was checked while the module loads.
      callUpstream ??= (await import('./call-upstream.js')).callUpstream;
      const serverName: unknown = input.server;
      const toolName: unknown = input.tool;
      const server = typeof serverName === 'string' ? options.servers.get(serverName) : undefined;
      if (server === undefined || typeof toolName !== 'string') {
        const label = isValidServerName(serverName) && typeof toolName === 'string' ? mcpToolName(serverName, toolName) : 'mcp_call';
        throw (typeof serverName === 'string' ? options.downError(serverName, label) : undefined) ?? new ToolPolicyError(label, 'server_not_allowed');
      }
      // Looked at here first: a call to a server that announced nothing takes no turn of the event loop for it.
      if (server.relisting !== undefined) await waitForRelisting(server, mcpToolName(server.config.name, toolName), signal);
      const entry = server.entries.get(toolName);
      if (entry === undefined) throw new ToolPolicyError(mcpToolName(server.config.name, toolName), 'tool_not_offered', { detail: 'is not offered by its MCP server' });
      const name = entry.name;
      if (entry.status !== 'offered') throw options.withheldError(entry);
      // Offered by its server, and left out for a name another server's tool holds: the rules of that name are the other tool's.
      if (entry.definition === undefined || !options.serves(entry.definition)) throw new ToolPolicyError(name, 'tool_not_offered', { detail: 'is not offered: another MCP server\'s tool holds its name' });
      if (input.targetsJudged !== true && hasArgumentTargets(entry)) throw new ToolPolicyError(name, 'target_unavailable', { detail: `was refused: ${targetsJudgedByName(entry)}` });
      const result = await callUpstream({
        client: server.client,
        name,
        input,
        signal,
        timeoutMs: server.config.timeoutMs,
        maxTotalTimeoutMs: server.config.maxTotalTimeoutMs,
        cleanText: (text) => scanProgress(text, server.config, toolName, options.emit),
      });
      const clean = scanResult(result, server.config, toolName, options.emit);
      if (clean.isError === true) throw new McpToolError(name, server.config.name, textOf(clean));
      return clean;
    },
  };
}

/**
 * Scan the part of the result that goes on: `structuredContent` when a
 * success carries it (it is the value; the content blocks beside it, by
 * convention the same data as text, reach no one), the content blocks
 * otherwise. Each string is scanned once.
 */
function scanResult(result: CallToolResult, config: McpServerConfig, tool: string, emit: Emit): CallToolResult {
  const strip = config.stripHiddenCharacters !== false;
  const structured = result.isError !== true && result.structuredContent !== undefined;
  const scan = structured ? scanHiddenInValue(result.structuredContent, strip) : scanHiddenInValue(result.content, strip);
  if (scan.count === 0) return result;
  emit('hidden-characters-detected', { server: config.name, tool, where: 'result', count: scan.count, codePoints: scan.codePoints, stripped: strip });
  return structured ? { ...result, structuredContent: scan.value as Record<string, unknown> } : { ...result, content: scan.value as CallToolResult['content'] };
}

/** A progress message is a line of status on its way to the client, which no other ceiling bounds: past this many characters it is cut. */
const MAX_PROGRESS_MESSAGE = 1000;

function scanProgress(text: string, config: McpServerConfig, tool: string, emit: Emit): string {
  const strip = config.stripHiddenCharacters !== false;
  // Cut before the scan: a message of megabytes costs no more to scan than its first characters, and a pair the cut splits is removed by it.
  const scan = scanHiddenCharacters(text.length > MAX_PROGRESS_MESSAGE ? `${text.slice(0, MAX_PROGRESS_MESSAGE)}…` : text, strip);
  if (scan.count > 0) emit('hidden-characters-detected', { server: config.name, tool, where: 'progress', count: scan.count, codePoints: scan.codePoints, stripped: strip });
  return scan.text;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join(' ');
}
