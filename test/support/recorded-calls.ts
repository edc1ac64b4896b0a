import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { connectClient, makeWorkspace, serveWorkspace } from './serve-gateway.js';
import { runCli } from './spawn-cli.js';

const SERVER = join(import.meta.dirname, '..', 'fixtures', 'mcp', 'any-args-server.mjs');

/** The tool of the any-args upstream (`api`) the calls go to. */
export const RECORDED_TOOL = 'mcp_api_call_api';

/** What the three places a call is kept hold of it: the console's receipts, `toolgate audit export`, and the journal file's bytes. */
export interface RecordedCalls {
  readonly consoleText: string;
  readonly exportText: string;
  readonly journalBytes: string;
}

/**
 * Serve a workspace whose upstream `api` takes any arguments, make each call
 * through a real MCP client (each must succeed), and read back what the
 * console, the export and the journal hold of them, the gateway stopped.
 */
export async function recordCalls(home: string, calls: readonly Record<string, unknown>[]): Promise<RecordedCalls> {
  const workspace = makeWorkspace({ mode: 'auto', servers: { api: { command: process.execPath, args: [SERVER], trust: 'annotations' } } });
  const gateway = await serveWorkspace(workspace, { env: { HOME: home } });
  let consoleText: string;
  try {
    const mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
    try {
      for (const args of calls) {
        const answer = await mcp.callTool({ name: RECORDED_TOOL, arguments: args });
        expect(JSON.stringify(answer.content)).toContain('status 200');
      }
      consoleText = JSON.stringify((await gateway.api(`/api/receipts?tool=${RECORDED_TOOL}`)).body);
    } finally {
      await mcp.close().catch(() => undefined);
    }
  } finally {
    await gateway.cli.stop();
  }
  const exported = await runCli(['audit', 'export', '--format', 'jsonl', '--out', join(home, 'export.jsonl')], workspace, undefined, { HOME: home });
  expect(exported.code).toBe(0);
  return { consoleText, exportText: readFileSync(join(home, 'export.jsonl'), 'utf8'), journalBytes: readFileSync(join(workspace, '.toolgate', 'journal.db')).toString('latin1') };
}
