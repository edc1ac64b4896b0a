import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConfirm, createLivePolicy, createPolicy, createToolRegistry, type PromptHook } from '../core/index.js';
import { governedTools } from '../core/policy/__fixtures__/governed-tools.js';
import { createFakeHost } from '../testing/create-fake-host.js';
import { serveMcp, type McpGateway } from './serve-mcp.js';

// Every MCP session's calls are approved as its own: what a person approves for the session of one client stands
// in for that session's calls only, and is dropped as the session ends (a DELETE, the idle sweep, the end of stdin).

const grantedTools = governedTools.map((tool) => tool.name);
const GIT_STATUS = { name: 'run_command', arguments: { command: ['git', 'status'] } };

function approvingForSession() {
  const policy = createLivePolicy(createPolicy({ allowedCommands: ['git status'], scope: { tier: 'workspace-write', roots: ['/work/repo'] } }));
  const prompt = vi.fn<PromptHook>(async () => ({ outcome: 'approve', scope: 'session' }));
  const controller = createConfirm({ mode: 'ask', prompt, policy });
  return { registry: createToolRegistry({ tools: governedTools, host: createFakeHost(), policy }), prompt, controller };
}

let opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.allSettled(opened.map((item) => item.close()));
  opened = [];
});

async function connect(url: string, name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  opened.push(client);
  return { client, transport };
}

describe('createGatewayServer: session approvals over HTTP', () => {
  it('are each session\'s own, say which client got them, and go with a DELETE or the idle sweep', async () => {
    const { registry, prompt, controller } = approvingForSession();
    const gateway: McpGateway = await serveMcp(registry, { transport: { kind: 'http', sessionIdleMs: 300 }, context: { grantedTools }, controller });
    opened.push(gateway);
    const a = await connect(gateway.url as string, 'client-a');
    const b = await connect(gateway.url as string, 'client-b');
    await a.client.callTool(GIT_STATUS);
    await a.client.callTool(GIT_STATUS);
    expect(prompt).toHaveBeenCalledTimes(1);
    expect(prompt.mock.calls[0]?.[0].session).toEqual({ id: a.transport.sessionId, client: { name: 'client-a', version: '1.0.0' } });
    await b.client.callTool(GIT_STATUS);
    expect(prompt).toHaveBeenCalledTimes(2);
    expect(controller.remembered().map((entry) => entry.session?.client?.name)).toEqual(['client-a', 'client-b']);

    await a.transport.terminateSession();
    await expect.poll(() => controller.remembered().map((entry) => entry.session?.client?.name)).toEqual(['client-b']);
    // B's client goes without a DELETE (the SDK client's close sends none): once nothing is in flight, the sweep
    // closes its session, and its approval goes with it.
    await b.client.close();
    await expect.poll(() => controller.remembered(), { timeout: 5_000 }).toEqual([]);
  });
});

describe('createGatewayServer: session approvals over stdio', () => {
  it('are the one client\'s, under an id of its own, until stdin ends', async () => {
    const { registry, prompt, controller } = approvingForSession();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const answers: Record<string, unknown>[] = [];
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter((text) => text.length > 0)) answers.push(JSON.parse(line) as Record<string, unknown>);
    });
    const gateway = await serveMcp(registry, { stdin, stdout, context: { grantedTools }, controller });
    opened.push(gateway);
    const send = (message: object): boolean => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stdio-client', version: '2' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { ...GIT_STATUS } });
    send({ id: 3, method: 'tools/call', params: { ...GIT_STATUS } });
    await expect.poll(() => answers.filter((answer) => answer.id === 2 || answer.id === 3).length).toBe(2);
    expect(prompt).toHaveBeenCalledTimes(1);
    const session = prompt.mock.calls[0]?.[0].session;
    expect(session?.client).toEqual({ name: 'stdio-client', version: '2' });
    expect(session?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(controller.remembered()).toHaveLength(1);
    stdin.end();
    await expect.poll(() => controller.remembered()).toEqual([]);
  });
});
