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

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Run a command to completion, collecting its output. */
export function run(command: string, args: readonly string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: options.timeoutMs ?? 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Start a script that prints `{"url": ...}` on its first stdout line; returns the URL and a stop function. */
export async function startUrlScript(script: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${String(code)}`)));
    child.stdout.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { url: string }).url));
  });
  return { url, stop: () => child.kill() };
}
