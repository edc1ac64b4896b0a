import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// A second MCP client of `toolgate serve --http` (another agent, or a local process holding the token) against what
// a person approved for the session of the first: the identical call, made on its own session, must reach a card.
// Each drives the real CLI with two MCP SDK clients and answers cards through the console's API.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();
const CAT = { command: ['cat', 'notes.txt'] };

async function connect(gateway: ServedGateway, name: string): Promise<Client> {
  return opened.client((await connectClient(gateway.mcpUrl, name, undefined, gateway.auth)).client);
}

/** What `/api/policy` lists as remembered: one entry per session, with its approvals. */
async function rememberedSessions(gateway: ServedGateway): Promise<{ session?: { id: string; client?: { name: string; version: string } }; approvals: unknown[] }[]> {
  return ((await gateway.api('/api/policy')).body as { remembered: { session?: { id: string; client?: { name: string; version: string } }; approvals: unknown[] }[] }).remembered;
}

describe('attack: a session approval given on one MCP client\'s card stands in for another client', () => {
  it('client B\'s identical call asks; client A\'s runs at once; once A\'s session ends, a new session asks again', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask', policy: { allowedCommandGlobs: ['cat *'] } }, { files: { 'notes.txt': 'plain notes\n' } }));
    const first = await connect(gateway, 'client-a');
    const second = await connect(gateway, 'client-b');

    const approved = await decideIfAsked(gateway, first, 'run_command', CAT, 'session');
    expect(approved.card).toBeDefined();
    expect(text(approved.result)).toContain('plain notes');

    const other = await decideIfAsked(gateway, second, 'run_command', CAT, 'reject');
    expect(other.card, `client B ran without a card: ${text(other.result)}`).toBeDefined();
    expect(text(other.result)).not.toContain('plain notes');

    // The session that was approved keeps its approval.
    const again = await decideIfAsked(gateway, first, 'run_command', CAT, 'reject');
    expect(again.card).toBeUndefined();
    expect(text(again.result)).toContain('plain notes');

    // The console lists the remembered approval under the session that got it, by its client's name.
    const listed = await rememberedSessions(gateway);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.session?.client?.name).toBe('client-a');
    expect(listed[0]?.approvals).toHaveLength(1);

    // Client A ends its session (DELETE): its approvals go with it.
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    await first.close();
    await expect.poll(async () => (await rememberedSessions(gateway)).length, { timeout: 10_000 }).toBe(0);
    const fresh = await connect(gateway, 'client-a');
    const renewed = await decideIfAsked(gateway, fresh, 'run_command', CAT, 'reject');
    expect(renewed.card, `a new session ran without a card: ${text(renewed.result)}`).toBeDefined();
  });

  it('the card says which client asked: its declared name and version, and a short session id', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask', policy: { allowedCommandGlobs: ['cat *'] } }, { files: { 'notes.txt': 'plain notes\n' } }));
    // A hostile name: a direction override that would reorder what the card shows.
    const client = await connect(gateway, 'client\u202Eevil');
    const asked = await decideIfAsked(gateway, client, 'run_command', CAT, 'reject');
    const session = (asked.card as unknown as { session?: { id: string; client?: { name: string; version: string } } }).session;
    expect(session?.client).toEqual({ name: 'client\u202Eevil', version: '1.0.0' });
    expect(session?.id).toMatch(/^[0-9a-f]{8}$/);
  });
});
