import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, createToolRegistry, unwrapUntrusted, type ToolOutcome, type ToolRegistry } from '../core/internal.js';
import { connectMcpServers } from './connect-mcp-servers.js';
import type { McpConnection, McpConnectionEventMap, McpServerConfig } from './mcp-types.js';

const HOSTILE = fileURLToPath(new URL('./__fixtures__/hostile-upstream.mjs', import.meta.url));

function hostile(extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name: 'hx', transport: 'stdio', command: process.execPath, args: [HOSTILE], timeoutMs: 300, ...extra } as McpServerConfig;
}

async function open(config: McpServerConfig, onEvent?: (name: string, event: unknown) => void): Promise<{ connection: McpConnection; call: (tool: string) => Promise<ToolOutcome> }> {
  const connection = await connectMcpServers({ servers: [config], ...(onEvent === undefined ? {} : { onEvent }) });
  const registry: ToolRegistry = createToolRegistry({ tools: connection.tools, host: { mcp: connection.capability }, policy: createPolicy({ mcpServers: ['hx'] }) });
  const grantedTools = registry.list().map((info) => info.key);
  let calls = 0;
  return { connection, call: (tool) => registry.dispatch({ callId: `c${(calls += 1)}`, name: `mcp_hx_${tool}`, arguments: {} }, { grantedTools }) };
}

describe('an upstream over stdio, read by the lean framing', () => {
  let connection: McpConnection;
  let call: (tool: string) => Promise<ToolOutcome>;
  const hidden: McpConnectionEventMap['hidden-characters-detected'][] = [];

  beforeAll(async () => {
    ({ connection, call } = await open(hostile(), (name, event) => {
      if (name === 'hidden-characters-detected') hidden.push(event as McpConnectionEventMap['hidden-characters-detected']);
    }));
  });
  afterAll(() => connection.close());

  it.each([
    ['an answer to another id', 'wrong_id'],
    ['a line that is not JSON', 'not_json'],
    ['a result that is an error response too', 'result_and_error'],
    ['a result that is a request too', 'result_and_method'],
    ['a result that is an array', 'result_array'],
    ['a result with a null _meta', 'meta_null'],
    ['another JSON-RPC version', 'other_version'],
  ])('takes nothing from %s: the call times out, and the server still answers the next one', async (_label, tool) => {
    const outcome = await call(tool);
    expect(!outcome.ok && outcome.error.code).toBe('TOOL_TIMEOUT');
    expect(unwrapUntrusted(outcome.content)).not.toContain('planted');
    const after = await call('fine');
    expect(after.ok && unwrapUntrusted(after.content)).toBe('fine');
  });

  it.each([
    ['a text block whose text is no string', 'malformed_content', 'content[0] has no text'],
    ['a block of no MCP content type', 'script_block', 'content[0] is of no MCP content type'],
  ])('refuses %s as a malformed result that quotes none of it', async (_label, tool, problem) => {
    const outcome = await call(tool);
    expect(!outcome.ok && outcome.error.code).toBe('EXECUTION_FAILED');
    expect(!outcome.ok && outcome.error.message).toContain(`malformed result (${problem})`);
    expect(unwrapUntrusted(outcome.content)).not.toContain('planted');
  });

  it('strips hidden characters from a result and reports them', async () => {
    // What this call reported: the flood of progress, run first in a shuffled order, reported 200 of its own.
    const before = hidden.length;
    const outcome = await call('hidden');
    expect(outcome.ok && unwrapUntrusted(outcome.content)).toBe('hidlrow there');
    expect(hidden.slice(before)).toEqual([expect.objectContaining({ server: 'hx', tool: 'hidden', where: 'result', count: 2, stripped: true })]);
  });

  it('bounds a huge result and marks it untrusted', async () => {
    const outcome = await call('huge');
    expect(outcome.ok).toBe(true);
    const text = unwrapUntrusted(outcome.content);
    expect(text.length).toBeLessThan(40 * 1024);
    expect(text).toMatch(/^y+/);
    expect(text).toContain('truncated');
    expect(outcome.content).not.toBe(text);
  });

  it('takes a flood of progress scanned, one answer per call, and no answer sent early for a call not yet made', async () => {
    const messages: string[] = [];
    const before = hidden.length;
    const result = await connection.capability.call({ server: 'hx', tool: 'noisy', arguments: {}, onProgress: (update) => messages.push(update.message ?? '') });
    expect(JSON.stringify(result)).toContain('noisy done');
    expect(messages).toHaveLength(200);
    expect(new Set(messages)).toEqual(new Set(['step on']));
    expect(hidden.slice(before)).toHaveLength(200);
    expect(hidden.slice(before).every((event) => event.where === 'progress')).toBe(true);
    // The answer the upstream sent for this next call before it was made is not taken for it.
    const after = await call('fine');
    expect(after.ok && unwrapUntrusted(after.content)).toBe('fine');
  });
});

describe('an upstream over stdio that sends a message past its bound', () => {
  it('closes the connection and fails the call, holding none of it', async () => {
    const { connection, call } = await open(hostile({ maxMessageBytes: 64 * 1024 }));
    try {
      const outcome = await call('huge');
      expect(!outcome.ok && outcome.error.message).toContain('the connection to the MCP server closed');
    } finally {
      await connection.close();
    }
  });
});
