import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { CLI } from './support/spawn-cli.js';

// A malicious upstream against the gateway's stdio writer: results whose strings hold line and paragraph
// separators, lone surrogates, raw line breaks and a forged JSON-RPC message, keys a naive copy treats as
// special, multi-megabyte results written concurrently, deep nesting, and a client that stops reading for a
// while. The SDK client drives `toolgate serve --stdio`; every byte the gateway writes is also kept and read
// line by line, so a spliced or forged message shows whatever the client made of it.

const HOSTILE = join(ROOT, 'test/__fixtures__/hostile-results-server.mjs');
const MEGABYTES = 3 * 1024 * 1024;

interface Served {
  client: Client;
  stdout: NodeJS.ReadableStream;
  /** Every line the gateway has written so far, as bytes. */
  lines(): Buffer[];
}

let served: Served;

beforeAll(async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-attack-stdio-'));
  const config = join(workspace, 'toolgate.config.json');
  writeFileSync(config, JSON.stringify({ servers: { hx: { command: process.execPath, args: [HOSTILE], trust: 'annotations' } }, limits: { maxBytes: 16 * MEGABYTES, maxLines: 100_000, maxOutputBytes: 16 * MEGABYTES }, console: { enabled: false } }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', config, 'serve', '--stdio'], stderr: 'ignore' });
  const client = new Client({ name: 'stdio-attacker', version: '1.0.0' });
  await client.connect(transport);
  // The transport's own child: a second listener sees the same bytes the SDK parses.
  const stdout = (transport as unknown as { _process: ChildProcess })._process.stdout as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const lines = (): Buffer[] => {
    const all = Buffer.concat(chunks);
    const found: Buffer[] = [];
    let start = 0;
    for (let end = all.indexOf(0x0a); end !== -1; end = all.indexOf(0x0a, start)) {
      found.push(all.subarray(start, end));
      start = end + 1;
    }
    return found;
  };
  served = { client, stdout, lines };
}, 30_000);

afterAll(async () => {
  await served?.client.close();
});

/** Each line since `from`: well-formed UTF-8, exactly what `JSON.stringify` writes for what it parses to. */
function messagesSince(from: number): { id?: unknown; result?: unknown }[] {
  return served.lines().slice(from).map((bytes) => {
    const line = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const message = JSON.parse(line) as { id?: unknown; result?: unknown };
    expect(line).toBe(JSON.stringify(message));
    return message;
  });
}

const texts = (result: object): string[] => ((result as { content?: { text?: string }[] }).content ?? []).map((part) => part.text ?? '');

describe('attack: an upstream result that tries to break the stdio framing', () => {
  it('held: separators, lone surrogates, line breaks, a forged message and special keys arrive as one message, written as JSON.stringify writes it', async () => {
    const from = served.lines().length;
    const result = await served.client.callTool({ name: 'mcp_hx_tricky', arguments: {} });
    const messages = messagesSince(from);
    expect(messages).toHaveLength(1);
    // Separators and lone surrogates are neutralised before a result is written; the rest arrives as the upstream sent it.
    expect(result.structuredContent).toMatchObject({ toJSON: 'not a function', constructor: { prototype: { polluted: true } } });
    expect((result.structuredContent as { nested: { text: string } }).nested.text).toContain('\n{"jsonrpc":"2.0","id":1,"result":');
    expect(texts(result)).toHaveLength(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('held: concurrent multi-megabyte results, read by a client that stops reading for a while, arrive whole, one line each, none forged', async () => {
    const from = served.lines().length;
    const tags = ['a', 'b', 'c', 'd'];
    const calls = tags.map((tag) => served.client.callTool({ name: 'mcp_hx_long', arguments: { size: MEGABYTES, tag } }, undefined, { timeout: 120_000 }));
    // The pipe fills while nothing reads it: the gateway's writes wait for it to drain.
    served.stdout.pause();
    await sleep(1_500);
    served.stdout.resume();
    const results = await Promise.all(calls);
    for (const [index, result] of results.entries()) {
      const [text] = texts(result);
      expect(text?.startsWith(`{"tag":"${tags[index]}","content":"yyy`), tags[index]).toBe(true);
    }
    const messages = messagesSince(from);
    expect(messages).toHaveLength(tags.length);
    expect(new Set(messages.map((message) => message.id)).size).toBe(tags.length);
    // Whole: nothing cut them to the model-facing default on the way.
    expect(served.lines().slice(from).every((line) => line.length > MEGABYTES)).toBe(true);
  }, 120_000);

  it('held: a deeply nested result arrives as one message: within the depth bound its value, past it a refusal that names the bound', async () => {
    // 62 levels below `value`: 64 with `structuredContent` and the leaf, the deepest an upstream result may nest.
    const within = served.lines().length;
    expect(texts(await served.client.callTool({ name: 'mcp_hx_deep', arguments: { depth: 62 } }))[0]).toMatch(/^\{"value":/);
    expect(messagesSince(within)).toHaveLength(1);
    for (const depth of [500, 2_000]) {
      const from = served.lines().length;
      expect(texts(await served.client.callTool({ name: 'mcp_hx_deep', arguments: { depth } }))[0], String(depth)).toContain('nests deeper than 64 levels');
      expect(messagesSince(from), String(depth)).toHaveLength(1);
    }
  });
});
