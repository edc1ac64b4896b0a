import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createToolRegistry, withAttachments, type ToolDefinition, type CreateToolRegistryOptions } from '../src/core/index.js';
import { serveMcp } from '../src/mcp/index.js';
import { sharedState, slowSpill } from '../src/core/dispatch/__fixtures__/pipeline-fixtures.js';
import { createFakeHost } from '../src/testing/index.js';

/**
 * A served tool's structured result is the value the call settled, through
 * the real SDK client over stdio framing: never a JSON text an earlier call
 * (or an earlier rendering in the same call) made of the same object.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function client(tools: ToolDefinition[], options: Partial<CreateToolRegistryOptions> = {}): Promise<Client> {
  // A 24 KiB output ceiling: a structured value of more than 4 KiB of text is measured against it.
  const registry = createToolRegistry({ tools, host: slowSpill(createFakeHost()), limits: { maxOutputBytes: 24 * 1024 }, ...options });
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const gateway = await serveMcp(registry, { transport: 'stdio', stdin: toServer, stdout: toClient, context: { grantedTools: tools.map((tool) => tool.name) } });
  const connected = new Client({ name: 'structured-test', version: '1.0.0' });
  await connected.connect(new StdioServerTransport(toClient, toServer));
  closers.push(async () => {
    await connected.close();
    await gateway.close();
  });
  return connected;
}

/** The same, served over Streamable HTTP on 127.0.0.1, where the SDK writes the result itself. */
async function httpClient(tools: ToolDefinition[]): Promise<Client> {
  const registry = createToolRegistry({ tools, host: slowSpill(createFakeHost()), limits: { maxOutputBytes: 24 * 1024 } });
  const gateway = await serveMcp(registry, { transport: { kind: 'http' }, context: { grantedTools: tools.map((tool) => tool.name), limits: { maxBytes: 300 } } });
  const connected = new Client({ name: 'structured-test', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(new URL(gateway.url ?? '')));
  closers.push(async () => {
    await connected.close();
    await gateway.close();
  });
  return connected;
}

const input = { type: 'object', properties: {} } as const;
const itemsOutput = { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } }, required: ['items'] } as const;

describe('served structured results', () => {
  it('sends the second call of a shared object as it was then, not as the first call rendered it', async () => {
    const state = { items: Array.from({ length: 200 }, (_, index) => `item-${index}-`.padEnd(50, 'x')) };
    const mcp = await client([{ name: 'get_state', description: 'Read the state.', input, output: itemsOutput, dispatch: () => state }]);
    const first = await mcp.callTool({ name: 'get_state', arguments: {} });
    expect((first.structuredContent as typeof state).items).toHaveLength(200);
    // Measured again (5.3 KB), and not (2.6 KB).
    for (const kept of [100, 50]) {
      state.items = state.items.slice(0, kept);
      const later = await mcp.callTool({ name: 'get_state', arguments: {} });
      expect((later.structuredContent as typeof state).items).toHaveLength(kept);
      expect(JSON.parse((later.content as { text: string }[])[0]?.text ?? '')).toEqual(later.structuredContent);
    }
  });

  it('builds a long structured value\'s JSON once: the rendering for the model is what is measured and written', async () => {
    const state = { items: Array.from({ length: 200 }, (_, index) => `item-${index}-`.padEnd(50, 'x')) };
    const text = JSON.stringify(state);
    const image = { handle: `media:sha256:${'a'.repeat(64)}`, mediaType: 'image/png', bytes: 3 };
    const mcp = await client([
      { name: 'get_state', description: 'Read the state.', input, output: itemsOutput, dispatch: () => state },
      // With media the result is built again, its media blocks added: the text goes with it.
      { name: 'get_state_with_media', description: 'Read the state, and a picture.', input, output: itemsOutput, dispatch: () => withAttachments(state, [image]) },
    ]);
    for (const name of ['get_state', 'get_state_with_media']) {
      const stringify = vi.spyOn(JSON, 'stringify');
      try {
        const result = await mcp.callTool({ name, arguments: {} });
        expect(result.structuredContent).toEqual(state);
        // Once, for the model; the text content (that text as a JSON string) is written on its own.
        expect(stringify.mock.results.filter((built) => built.value === text), name).toHaveLength(1);
      } finally {
        stringify.mockRestore();
      }
    }
  });

  it('measures the text it sends: a value shrunk while its call waited on the spill is not sent past the ceiling as its older text', async () => {
    const { tools } = sharedState({ output: itemsOutput });
    const mcp = await client([
      ...tools,
      {
        name: 'trims_itself',
        description: 'Returns a value it trims a moment later.',
        input,
        output: itemsOutput,
        dispatch: () => {
          const value = { items: Array.from({ length: 1200 }, (_, index) => `item-${index}-`.padEnd(50, 'x')) };
          setTimeout(() => (value.items = value.items.slice(0, 10)), 10);
          return value;
        },
      },
    ]);
    const reading = mcp.callTool({ name: 'get_state', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await mcp.callTool({ name: 'trim_state', arguments: {} });
    for (const result of [await reading, await mcp.callTool({ name: 'trims_itself', arguments: {} })]) {
      // 1,200 short strings: no cut brings the value as rendered under 24 KiB, so none is sent.
      expect(result.structuredContent).toBeUndefined();
      expect(result.isError).toBe(true);
    }
  });

  it('over HTTP, where the SDK writes the object, measures the object: a value grown while its call waited on the spill is not sent past the ceiling', async () => {
    // About 10 KB as rendered, 64 KB once another call grows it.
    const state = { items: Array.from({ length: 200 }, (_, index) => `item-${index}-`.padEnd(50, 'x')) };
    const grown = Array.from({ length: 1200 }, (_, index) => `item-${index}-`.padEnd(50, 'x'));
    const mcp = await httpClient([
      { name: 'get_state', description: 'Read the state.', input, output: itemsOutput, dispatch: () => state },
      {
        name: 'grow_state',
        description: 'Grow the state.',
        input,
        dispatch: () => {
          state.items = grown;
          return 'ok';
        },
      },
    ]);
    // Content past the 300-byte limit below is spilled, which the slow host makes the call wait on.
    const reading = mcp.callTool({ name: 'get_state', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await mcp.callTool({ name: 'grow_state', arguments: {} });
    const result = await reading;
    if (result.structuredContent !== undefined) expect(Buffer.byteLength(JSON.stringify(result.structuredContent))).toBeLessThanOrEqual(24 * 1024);
    else expect(result.isError).toBe(true);
  });

  it('sends what a postExecute hook redacted in place, not the secret an earlier rendering held', async () => {
    const output = { type: 'object', properties: { name: { type: 'string' }, apiKey: { type: 'string' }, bio: { type: 'string' } } } as const;
    const mcp = await client([{ name: 'fetch_user', description: 'Fetch a user.', input, output, dispatch: () => ({ name: 'ann', apiKey: `SECRET-${'k'.repeat(6000)}`, bio: 'b'.repeat(5000) }) }], {
      hooks: {
        postExecute: [
          ({ value }) => {
            (value as { apiKey: string }).apiKey = '[redacted]';
            return undefined;
          },
        ],
      },
    });
    const result = await mcp.callTool({ name: 'fetch_user', arguments: {} });
    expect(JSON.stringify(result)).not.toContain('SECRET');
    expect((result.structuredContent as { apiKey: string }).apiKey).toBe('[redacted]');
  });
});
