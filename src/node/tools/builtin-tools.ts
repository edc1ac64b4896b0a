import type { AnyToolDefinition } from '../../core/internal.js';
import { editFileTool } from './edit-file-tool.js';
import { gitCommitTool } from './git-commit-tool.js';
import { gitStatusTool } from './git-status-tool.js';
import { httpRequestTool } from './http-request-tool.js';
import { listDirectoryTool } from './list-directory-tool.js';
import { invokeAgentTool } from './invoke-agent-tool.js';
import { mcpCallTool } from './mcp-call-tool.js';
import { notifyTool } from './notify-tool.js';
import { readClipboardTool } from './read-clipboard-tool.js';
import { readMediaTool } from './read-media-tool.js';
import { readFileTool } from './read-file-tool.js';
import { runCommandTool } from './run-command-tool.js';
import { webSearchTool } from './web-search-tool.js';
import { writeFileTool } from './write-file-tool.js';

/** Every built-in tool, in catalog order. Register them all, or pick. */
export const builtinTools: readonly AnyToolDefinition[] = Object.freeze([
  readFileTool,
  writeFileTool,
  editFileTool,
  listDirectoryTool,
  runCommandTool,
  gitStatusTool,
  gitCommitTool,
  httpRequestTool,
  webSearchTool,
  readClipboardTool,
  notifyTool,
  mcpCallTool,
  invokeAgentTool,
  readMediaTool,
]);
