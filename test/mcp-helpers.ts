import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../src/mcp/index.js';

export const UPSTREAM = fileURLToPath(new URL('./fixtures/mcp/upstream-server.mjs', import.meta.url));

/** The fixture upstream over stdio, with optional extra argv. */
export function stdioUpstream(name: string, extra: Partial<McpServerConfig> & { argv?: string[] } = {}): McpServerConfig {
  const { argv = [], ...rest } = extra;
  return { name, transport: 'stdio', command: process.execPath, args: [UPSTREAM, ...argv], ...rest } as McpServerConfig;
}

/** Start the fixture upstream over HTTP on an ephemeral loopback port. */
export async function httpUpstream(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [UPSTREAM, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { port: number }).port));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill() };
}
