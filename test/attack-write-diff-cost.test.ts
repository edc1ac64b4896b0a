import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { decide, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// A hostile model against the diff a console card draws for a `write_file`, through `toolgate serve`, the MCP SDK
// client and the console's API. The diff is built on the gateway's one thread before the card shows, and a line diff
// costs the product of the lines and the lines that differ: a write of 256 KiB of lines each unlike the file's held
// every client of the gateway for minutes.

const opened = closeAfterEach();

async function serve(): Promise<{ gateway: ServedGateway; mcp: Client; other: Client }> {
  const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  const other = opened.client((await connectClient(gateway.mcpUrl, 'bystander', undefined, gateway.auth)).client);
  return { gateway, mcp, other };
}

/** `count` short lines, each unlike any other, none shared between two `tag`s. */
const lines = (tag: string, count: number): string => Array.from({ length: count }, (_, index) => `${tag}${String(index)}`).join('\n');

describe('attack: a write whose every line differs from the file\'s', () => {
  it('its card comes at once with no diff, and another client is answered meanwhile', async () => {
    const { gateway, mcp, other } = await serve();
    // A file of 35,000 lines, under the 256 KiB a diff takes, and a write of 9,000 under the 64 KiB a call may carry.
    writeFileSync(join(gateway.workspace, 'data.txt'), lines('a', 35_000));
    const started = Date.now();
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'data.txt', content: lines('b', 9000) } }, undefined, { timeout: 300_000 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const listed = Date.now();
    await other.listTools(undefined, { timeout: 300_000 });
    const waited = Date.now() - listed;
    const card = await pendingApproval(gateway, 'write_file');
    expect(waited, 'another client waited on the diff').toBeLessThan(3000);
    expect(Date.now() - started).toBeLessThan(5000);
    // Nothing to draw in time: the card shows the write itself.
    expect(card.diff).toBeUndefined();
    expect(card.view?.body).toContain('b8999');
    await decide(gateway, card.id, 'reject');
    expect((await call).isError).toBe(true);
  }, 300_000);
});
