import { ToolUnavailableError } from '../errors/tool-errors.js';
import type { ToolHost } from './tool-host.js';

/** The capability a tool body needs, or a typed `ToolUnavailableError` naming it. */
export function requireCapability<TName extends keyof ToolHost>(host: ToolHost, capability: TName, toolName: string): NonNullable<ToolHost[TName]> {
  const provided = host[capability];
  if (provided === undefined) throw new ToolUnavailableError(toolName, capability);
  return provided;
}
