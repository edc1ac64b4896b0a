#!/usr/bin/env node
/**
 * `node dist/mcp/serve-stdio-main.js <config.json>`: a governed MCP gateway
 * over stdio. The JSON file holds `StartMcpGatewayOptions` fields that are
 * data: `servers`, `pinFile`, `pinning`, `grantedTools`, and `serveMcp`'s
 * `maxUnreadBytes`.
 */
import { readFile } from 'node:fs/promises';
import { startMcpGateway, type StartMcpGatewayOptions } from './start-mcp-gateway.js';

const path = process.argv[2];
if (path === undefined) {
  process.stderr.write('usage: serve-stdio-main <config.json>\n');
  process.exit(2);
}
let started: Awaited<ReturnType<typeof startMcpGateway>>;
try {
  const config = JSON.parse(await readFile(path, 'utf8')) as Pick<StartMcpGatewayOptions, 'servers' | 'pinFile' | 'pinning' | 'grantedTools'> & { maxUnreadBytes?: number };
  started = await startMcpGateway({
    servers: config.servers,
    ...(config.pinFile === undefined ? {} : { pinFile: config.pinFile }),
    ...(config.pinning === undefined ? {} : { pinning: config.pinning }),
    ...(config.grantedTools === undefined ? {} : { grantedTools: config.grantedTools }),
    serve: { transport: 'stdio', ...(config.maxUnreadBytes === undefined ? {} : { maxUnreadBytes: config.maxUnreadBytes }) },
  });
} catch (error) {
  // stdout belongs to the MCP client: the reason goes to stderr, and the exit code says configuration.
  process.stderr.write(`toolgate: the MCP gateway could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
const stop = (): void => {
  started.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.stdin.once('end', stop);
process.stdin.once('close', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
