import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// `mcp_call` handed the client the upstream's whole `CallToolResult` ({ result }), while the hidden-character scan
// read only the part that goes on for a discovered tool: the structured value when there is one, else the content
// blocks. Through `mcp_call` everything went on: the text blocks beside a clean structured value and the result's own
// `_meta` reached the client and the model with their Unicode tag characters, and a `_meta` nested 20,000 levels
// overflowed the stack (the client got a JSON-RPC error, no tool result). The same upstream answers, called by the
// tool's own name, arrived clean. `mcp_call` now gets the part that goes on, as a discovered tool does.

const RAW = join(ROOT, 'test/__fixtures__/raw-result-server.mjs');
const DEEP = join(ROOT, 'test/__fixtures__/deep-meta-server.mjs');
/** Unicode tag characters and the other invisible code points the scan removes. */
const HIDDEN = /[\u200B\u202E\u2066\u{E0000}-\u{E0FFF}]/u;
type Result = Awaited<ReturnType<Client['callTool']>>;
const wire = (result: Result): string => JSON.stringify(result);
const textOf = (result: Result): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');

let gateway: ServedGateway;
let mcp: Client;

beforeAll(async () => {
  gateway = await serveGateway({
    mode: 'auto',
    console: { enabled: false },
    policy: { allow: ['mcp_call', 'mcp__raw__split', 'mcp__raw__meta', 'mcp__deep__deep'] },
    servers: {
      raw: { command: process.execPath, args: [RAW] },
      deep: { command: process.execPath, args: [DEEP], env: { RAW_DEPTH: '20000' } },
    },
  });
  mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
}, 30_000);

afterAll(async () => {
  await mcp?.close();
  await gateway?.cli.stop();
});

describe('attack: hidden text through mcp_call, in the parts of a result the scan skips', () => {
  it('held: called by their own names, the same results arrive without hidden characters', async () => {
    const split = await mcp.callTool({ name: 'mcp_raw_split', arguments: {} });
    expect(split.isError).not.toBe(true);
    expect(wire(split)).not.toMatch(HIDDEN);
    const meta = await mcp.callTool({ name: 'mcp_raw_meta', arguments: {} });
    expect(textOf(meta)).toBe('plain');
    expect(wire(meta)).not.toMatch(HIDDEN);
  });

  it('mcp_call of a clean structured value beside hidden text answers the value alone, without the text beside it', async () => {
    const result = await mcp.callTool({ name: 'mcp_call', arguments: { server: 'raw', tool: 'split' } });
    expect(result.isError).not.toBe(true);
    expect(wire(result)).not.toMatch(HIDDEN);
    expect(JSON.parse(textOf(result))).toEqual({ result: { content: [], structuredContent: { ok: true } } });
  });

  it("mcp_call leaves out the result's own _meta, hidden text and all", async () => {
    const result = await mcp.callTool({ name: 'mcp_call', arguments: { server: 'raw', tool: 'meta' } });
    expect(result.isError).not.toBe(true);
    expect(wire(result)).not.toMatch(HIDDEN);
    expect(JSON.parse(textOf(result))).toEqual({ result: { content: [{ type: 'text', text: 'plain' }] } });
  });

  it('a result _meta nested 20,000 deep: mcp_call answers with the content, the gateway still answering', async () => {
    // Held by its own name: nothing walks `_meta`, the text goes on.
    expect(textOf(await mcp.callTool({ name: 'mcp_deep_deep', arguments: {} }))).toBe('deep');
    // Through mcp_call the whole result was the value: rendering it overflowed the stack, and the client got a
    // JSON-RPC error -32603 "Maximum call stack size exceeded" with no tool result.
    const result = await mcp.callTool({ name: 'mcp_call', arguments: { server: 'deep', tool: 'deep' } });
    expect(result.isError).not.toBe(true);
    expect(JSON.parse(textOf(result))).toEqual({ result: { content: [{ type: 'text', text: 'deep' }] } });
    expect(textOf(await mcp.callTool({ name: 'mcp_deep_deep', arguments: {} }))).toBe('deep');
  });
});
