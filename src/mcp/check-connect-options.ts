import { ConfigurationError } from '../core/internal.js';
import { isValidServerName } from './is-valid-server-name.js';
import type { ConnectMcpServersOptions } from './mcp-types.js';
import { checkServerGovernance } from './upstream-governance.js';

/** Refuse a configuration mistake before any server starts: names, transports, time limits, governance and the pinning mode. */
export function checkConnectOptions(options: ConnectMcpServersOptions): void {
  const servers: unknown = (options as Partial<ConnectMcpServersOptions> | null)?.servers;
  if (!Array.isArray(servers)) throw new ConfigurationError('servers', 'must be an array of server configurations');
  const names = new Set<string>();
  for (const [index, entry] of (servers as unknown[]).entries()) {
    const server = (typeof entry === 'object' && entry !== null ? entry : {}) as Partial<Record<string, unknown>>;
    const name = server.name;
    if (!isValidServerName(name)) throw new ConfigurationError(`servers[${index}].name`, 'must match ^[a-z][a-z0-9_]{0,31}$ without "__"');
    if (names.has(name)) throw new ConfigurationError(`servers[${index}].name`, `repeats "${name}"`);
    names.add(name);
    if (server.transport !== 'stdio' && server.transport !== 'http') throw new ConfigurationError(`servers[${index}].transport`, 'must be "stdio" or "http"');
    for (const field of ['timeoutMs', 'maxTotalTimeoutMs', 'connectTimeoutMs'] as const) {
      const value = server[field];
      if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 3_600_000)) {
        throw new ConfigurationError(`servers[${index}].${field}`, 'must be between 1 ms and 1 hour');
      }
    }
    checkServerGovernance(server as Parameters<typeof checkServerGovernance>[0], `servers[${index}]`);
  }
  if (options.pinning !== undefined && options.pinning !== 'first-use' && options.pinning !== 'approve') throw new ConfigurationError('pinning', 'must be "first-use" or "approve"');
}
