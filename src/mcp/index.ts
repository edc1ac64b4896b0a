// MCP both ways: upstream servers as governed tools, and any registry served to MCP clients.
export { connectMcpServers } from './connect-mcp-servers.js';
export type {
  ConnectMcpServersOptions,
  LiveRegistry,
  McpConnection,
  McpConnectionEventMap,
  McpConnectionEventName,
  McpFetch,
  McpHttpServerConfig,
  McpServerConfig,
  McpServerStatus,
  McpStdioServerConfig,
  McpToolOverride,
  McpToolsChange,
  ReviewedDefinition,
  WithheldDefinition,
  WithheldReason,
} from './mcp-types.js';
export type { McpArgumentTargets } from './argument-targets.js';
export { upstreamGovernanceOf } from './build-upstream-tool.js';
export { checkServerGovernance, type UpstreamGovernance, type UpstreamGovernanceReason } from './upstream-governance.js';
export { createMemoryPinStore, type McpPin, type McpPinnedDefinition, type McpPinStore } from './pin-store.js';
export { createJsonFilePinStore } from './create-json-file-pin-store.js';
export { mcpToolName } from '../core/internal.js';
export { buildStdioEnv } from './build-stdio-env.js';
export { mapCallToolResult } from './map-call-tool-result.js';
export { McpToolError } from './mcp-tool-error.js';
export { McpServerUnavailableError } from './mcp-server-unavailable-error.js';
export { scanHiddenCharacters, type HiddenCharacterScan } from './scan-hidden-characters.js';
export { serveMcp, type McpGateway, type ServeMcpOptions } from './serve-mcp.js';
export type { ObserveServedCall, ServedCall } from './observe-served-call.js';
export type { ApprovalChannels, ElicitationTrust } from './choose-served-confirm.js';
export type { ServeHttpOptions } from './serve-http.js';
export { startMcpGateway, type StartedMcpGateway, type StartMcpGatewayOptions } from './start-mcp-gateway.js';
