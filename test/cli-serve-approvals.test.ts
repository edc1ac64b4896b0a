import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { CLI } from './support/spawn-cli.js';
import { closeAfterEach, connectClient, consoleApi, makeWorkspace, serveGateway, watchConsole, type ServedGateway } from './support/serve-gateway.js';

const NOTES = { 'notes.md': 'first\n' };
const WRITE = { name: 'write_file', arguments: { path: 'notes.md', content: 'changed\n' } };

interface Closed {
  readonly id: string;
  readonly outcome: string;
}

const opened = closeAfterEach();

async function serve(config: object, args: readonly string[] = []): Promise<ServedGateway> {
  const gateway = await serveGateway({ scope: 'workspace-write', ...config }, { files: NOTES, args });
  opened.gateway(gateway);
  return gateway;
}

async function connect(gateway: ServedGateway, name: string, elicit?: boolean): Promise<{ client: Client; asked: unknown[] }> {
  const connected = await connectClient(gateway.mcpUrl, name, elicit, gateway.auth);
  opened.client(connected.client);
  return connected;
}

const notes = (where: { workspace: string }): string => readFileSync(join(where.workspace, 'notes.md'), 'utf8');
const pending = async (gateway: ServedGateway): Promise<{ id: string; toolName: string }[]> => (await gateway.api('/api/approvals')).body as { id: string; toolName: string }[];
const closed = async (gateway: ServedGateway): Promise<Closed[]> => (await gateway.api('/api/approvals/closed')).body as Closed[];
const text = (result: unknown): string => JSON.stringify((result as { content?: unknown }).content);
/** Give a wrongly approved write time to land before asserting it never did. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

describe('toolgate serve: the mode decides before any channel asks a person', () => {
  it('plan mode refuses a write that a trusted, self-approving client would approve, and never asks it', async () => {
    const gateway = await serve({ mode: 'plan', elicitation: { trustedClients: ['trusted-client'] } });
    for (const name of ['trusted-client', 'any-client']) {
      const { client, asked } = await connect(gateway, name, true);
      const result = await client.callTool(WRITE);
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('plan mode');
      expect(asked).toEqual([]);
    }
    expect(await pending(gateway)).toEqual([]);
    await settle();
    expect(notes(gateway)).toBe('first\n');
  });

  it('in mode ask, a client that is not trusted is never asked: its approval waits in the console', async () => {
    const gateway = await serve({ mode: 'ask', elicitation: { trustedClients: ['trusted-client'] } });
    const { client, asked } = await connect(gateway, 'self-approver', true);
    const call = client.callTool(WRITE);
    await expect.poll(async () => (await pending(gateway)).length, { timeout: 15_000 }).toBe(1);
    expect(asked).toEqual([]);
    expect(notes(gateway)).toBe('first\n');
    const [approval] = await pending(gateway);
    expect((await gateway.api(`/api/approvals/${approval?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'reject' }) })).status).toBe(200);
    expect((await call).isError).toBe(true);
    expect(asked).toEqual([]);
    await settle();
    expect(notes(gateway)).toBe('first\n');
  });

  it('elicitation is off by default: a client that declares it is not asked', async () => {
    const gateway = await serve({ mode: 'ask' });
    const { client, asked } = await connect(gateway, 'self-approver', true);
    const call = client.callTool(WRITE);
    await expect.poll(async () => (await pending(gateway)).length, { timeout: 15_000 }).toBe(1);
    expect(asked).toEqual([]);
    const [approval] = await pending(gateway);
    await gateway.api(`/api/approvals/${approval?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'reject' }) });
    expect((await call).isError).toBe(true);
    expect(notes(gateway)).toBe('first\n');
  });

  it('a trusted client is asked through elicitation, and its approval runs the call', async () => {
    const gateway = await serve({ mode: 'ask', elicitation: { trustedClients: ['trusted-client'] } });
    const { client, asked } = await connect(gateway, 'trusted-client', true);
    const result = await client.callTool(WRITE);
    expect(result.isError).not.toBe(true);
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0])).toContain('notes.md');
    expect(notes(gateway)).toBe('changed\n');
    expect(await pending(gateway)).toEqual([]);
  });

  it('"*" trusts every client; --no-elicitation still sends every approval to the console', async () => {
    const gateway = await serve({ mode: 'ask', elicitation: { trustedClients: ['*'] } }, ['--no-elicitation']);
    const { client, asked } = await connect(gateway, 'self-approver', true);
    const call = client.callTool(WRITE);
    await expect.poll(async () => (await pending(gateway)).length, { timeout: 15_000 }).toBe(1);
    expect(asked).toEqual([]);
    expect(notes(gateway)).toBe('first\n');
    const [approval] = await pending(gateway);
    await gateway.api(`/api/approvals/${approval?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'once' }) });
    expect((await call).isError).not.toBe(true);
    expect(notes(gateway)).toBe('changed\n');
    expect(asked).toEqual([]);
  });
});

describe('toolgate serve: an approval lives and dies with its call', () => {
  it('a client that goes away withdraws its pending approval; approving it later does nothing', async () => {
    const gateway = await serve({ mode: 'ask' });
    const { client } = await connect(gateway, 'leaving-client');
    void client.callTool(WRITE).catch(() => undefined);
    await expect.poll(async () => (await pending(gateway)).length, { timeout: 15_000 }).toBe(1);
    const [approval] = await pending(gateway);
    // The SDK client closes its streams without a DELETE: the gateway sees the call's stream drop.
    await client.close();
    await expect.poll(async () => (await closed(gateway)).find((entry) => entry.id === approval?.id)?.outcome, { timeout: 10_000 }).toBe('withdrawn');
    expect(await pending(gateway)).toEqual([]);
    expect((await gateway.api(`/api/approvals/${approval?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'once' }) })).status).toBe(404);
    await settle();
    expect(notes(gateway)).toBe('first\n');
  });

  it('an MCP cancellation (notifications/cancelled, also sent on a client-side timeout) withdraws the pending approval', async () => {
    const gateway = await serve({ mode: 'ask' });
    const { client } = await connect(gateway, 'cancelling-client');
    const controller = new AbortController();
    const call = client.callTool(WRITE, undefined, { signal: controller.signal });
    await expect.poll(async () => (await pending(gateway)).length, { timeout: 15_000 }).toBe(1);
    const [approval] = await pending(gateway);
    controller.abort();
    await expect(call).rejects.toBeDefined();
    await expect.poll(async () => (await closed(gateway)).find((entry) => entry.id === approval?.id)?.outcome, { timeout: 10_000 }).toBe('withdrawn');
    expect((await gateway.api(`/api/approvals/${approval?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'once' }) })).status).toBe(404);
    await settle();
    expect(notes(gateway)).toBe('first\n');
    // A client whose request times out cancels it the same way: its approval does not linger.
    const timedOut = client.callTool(WRITE, undefined, { timeout: 1500 });
    await expect.poll(async () => (await pending(gateway)).length, { timeout: 15_000 }).toBe(1);
    const [late] = await pending(gateway);
    await expect(timedOut).rejects.toThrow(/timed out/i);
    await expect.poll(async () => (await closed(gateway)).find((entry) => entry.id === late?.id)?.outcome, { timeout: 10_000 }).toBe('withdrawn');
    expect(await pending(gateway)).toEqual([]);
    expect(notes(gateway)).toBe('first\n');
    // The session itself is still usable.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('an HTTP session closed with a DELETE withdraws the pending approval', async () => {
    const gateway = await serve({ mode: 'ask' });
    const client = new Client({ name: 'deleting-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(gateway.mcpUrl, gateway.auth);
    await client.connect(transport);
    opened.client(client);
    void client.callTool(WRITE).catch(() => undefined);
    await expect.poll(async () => (await pending(gateway)).length, { timeout: 15_000 }).toBe(1);
    const [approval] = await pending(gateway);
    await transport.terminateSession();
    await expect.poll(async () => (await closed(gateway)).find((entry) => entry.id === approval?.id)?.outcome, { timeout: 10_000 }).toBe('withdrawn');
    expect((await gateway.api(`/api/approvals/${approval?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'once' }) })).status).toBe(404);
    await settle();
    expect(notes(gateway)).toBe('first\n');
  });

  it('a stdio client that exits withdraws its pending approval before the gateway stops', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask' }, NOTES);
    // The console is on; its address is in the start-up document on stderr, its URL with the token in the locator the operator reads.
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--json', 'serve', '--stdio'], cwd: workspace, stderr: 'pipe' });
    let stderr = '';
    (transport.stderr as Readable | null)?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const client = new Client({ name: 'stdio-client', version: '1.0.0' });
    await client.connect(transport);
    await expect.poll(() => /"console":"([^"]+)"/.exec(stderr)?.[1], { timeout: 15_000 }).toBeDefined();
    const consoleUrl = new URL((JSON.parse(readFileSync(join(workspace, '.toolgate', 'console.json'), 'utf8')) as { url: string }).url);
    const watched = watchConsole(consoleUrl);
    try {
      void client.callTool(WRITE).catch(() => undefined);
      await expect.poll(async () => ((await consoleApi(consoleUrl, '/api/approvals')).body as unknown[]).length, { timeout: 15_000 }).toBe(1);
      const [approval] = (await consoleApi(consoleUrl, '/api/approvals')).body as { id: string }[];
      await client.close();
      await expect.poll(() => watched.events.find((event) => event.type === 'approval' && (event.data as { id?: string }).id === approval?.id && (event.data as { type?: string }).type === 'resolved')?.data, { timeout: 10_000 }).toMatchObject({ outcome: 'withdrawn' });
      await settle();
      expect(notes({ workspace })).toBe('first\n');
    } finally {
      watched.stop();
    }
  });

  it('an approval nobody decides expires as a rejection after approvals.timeoutSeconds', async () => {
    const gateway = await serve({ mode: 'ask', approvals: { timeoutSeconds: 1 } });
    const { client } = await connect(gateway, 'waiting-client');
    const started = Date.now();
    const call = client.callTool(WRITE);
    await expect.poll(async () => (await pending(gateway)).length, { timeout: 15_000 }).toBe(1);
    const [approval] = await pending(gateway);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('expired');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect((await closed(gateway)).find((entry) => entry.id === approval?.id)?.outcome).toBe('expired');
    expect((await gateway.api(`/api/approvals/${approval?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'once' }) })).status).toBe(404);
    await settle();
    expect(notes(gateway)).toBe('first\n');
  });
});

describe('toolgate serve --stdio --no-console: nobody to ask', () => {
  async function stdioClient(config: object, files: Record<string, string> = NOTES): Promise<{ client: Client; workspace: string }> {
    const workspace = makeWorkspace({ scope: 'workspace-write', ...config }, files);
    const client = new Client({ name: 'plain-client', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio', '--no-console'], cwd: workspace, stderr: 'ignore' }));
    opened.client(client);
    return { client, workspace };
  }

  it('denies a governed call at once, saying how to approve', async () => {
    const { client, workspace } = await stdioClient({ mode: 'ask' });
    const started = Date.now();
    const result = await client.callTool(WRITE);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('console');
    expect(text(result)).toContain('elicitation.trustedClients');
    expect(notes({ workspace })).toBe('first\n');
  });

  it('still runs what the mode decides without a person: an auto-mode call a rule allows', async () => {
    const { client, workspace } = await stdioClient({ mode: 'auto', policy: { allow: ['Edit(./notes.md)'] } }, { ...NOTES, 'other.md': 'other\n' });
    const allowed = await client.callTool(WRITE);
    expect(allowed.isError).not.toBe(true);
    expect(notes({ workspace })).toBe('changed\n');
    const started = Date.now();
    const refused = await client.callTool({ name: 'write_file', arguments: { path: 'other.md', content: 'changed\n' } });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(refused.isError).toBe(true);
    expect(readFileSync(join(workspace, 'other.md'), 'utf8')).toBe('other\n');
  });
});
