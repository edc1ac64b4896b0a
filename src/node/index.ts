// The Node host and the built-in tools: every side effect the engine decides on.
export { createNodeHost } from './create-node-host.js';
export { nodeSha256 } from './digest/node-sha256.js';
export type {
  EgressConnect,
  EgressLookup,
  EgressOptions,
  FsScope,
  NodeHost,
  NodeHostOptions,
  ResolvedAddress,
  SandboxMode,
  SecretStore,
} from './node-host-types.js';
export type { NodeOutputStore } from './stores/create-output-store.js';
export type { MaskWalkLimit } from './process/find-protected-files.js';
export { isPublicAddress } from './egress/classify-address.js';
export { SYSTEM_PATH } from './process/system-path.js';
export { gitHardeningEnv } from './process/build-child-env.js';

export { builtinTools } from './tools/builtin-tools.js';
export { readFileTool, type ReadFileArgs } from './tools/read-file-tool.js';
export { writeFileTool, type WriteFileArgs } from './tools/write-file-tool.js';
export { editFileTool, type EditFileArgs } from './tools/edit-file-tool.js';
export { listDirectoryTool, type ListDirectoryArgs } from './tools/list-directory-tool.js';
export { runCommandTool, commandArgv, type RunCommandArgs } from './tools/run-command-tool.js';
export { gitStatusTool } from './tools/git-status-tool.js';
export { gitCommitTool, type GitCommitArgs, type GitCommitResult } from './tools/git-commit-tool.js';
export { httpRequestTool, type HttpRequestArgs } from './tools/http-request-tool.js';
export { webSearchTool, type WebSearchArgs, type WebSearchResult } from './tools/web-search-tool.js';
export { webSearchProviders, type WebSearchHit, type WebSearchProvider, type WebSearchProviderName } from './tools/web-search-providers.js';
export { readClipboardTool } from './tools/read-clipboard-tool.js';
export { notifyTool, type NotifyArgs } from './tools/notify-tool.js';
export { mcpCallTool, type McpCallArgs } from './tools/mcp-call-tool.js';
export { invokeAgentTool, type InvokeAgentArgs } from './tools/invoke-agent-tool.js';
export { readMediaTool } from './tools/read-media-tool.js';
export { renderToolCatalog } from './catalog/render-tool-catalog.js';

// Policy files: remembered `always` approvals, Claude Code and Gemini CLI importers.
export { appendPolicyRule, createRulePersister, isTrustedPolicyFile, policyFilePaths, readPolicyFile, type PolicyFile } from './policy/policy-file.js';
export { claudeSettingsFiles, loadClaudeSettings, type LoadClaudeSettingsOptions } from './policy/load-claude-settings.js';
export { loadGeminiPolicies, type LoadGeminiPoliciesOptions } from './policy/load-gemini-policies.js';
