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
  McpStdioServerConfig,
  McpToolsChange,
  WithheldDefinition,
  WithheldReason,
} from './mcp-types.js';
export { createMemoryPinStore, type McpPin, type McpPinStore } from './pin-store.js';
export { createJsonFilePinStore } from './create-json-file-pin-store.js';
export { mcpToolName } from './mcp-tool-name.js';
export { buildStdioEnv } from './build-stdio-env.js';
export { mapCallToolResult } from './map-call-tool-result.js';
export { McpToolError } from './mcp-tool-error.js';
export { scanHiddenCharacters, type HiddenCharacterScan } from './scan-hidden-characters.js';
