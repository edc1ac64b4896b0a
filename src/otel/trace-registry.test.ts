import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, createToolRegistry, REDACTED, type ToolDefinition, type ToolPolicy } from '../core/internal.js';
import { connectMcpServers, serveMcp, type McpConnection, type McpGateway } from '../mcp/index.js';
import { createScriptedApprover } from '../testing/index.js';
import { stdioUpstream } from '../../test/fixtures/mcp/helpers.js';
import { recordingTracer, type RecordedSpan } from './__fixtures__/record-spans.js';
import { traceRegistry } from './trace-registry.js';

const SECRET = 'sk-abcdefghijklmnopqrstuvwxyz123456';

type TextArgs = { text: string };
const input = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;
const tools: ToolDefinition<TextArgs>[] = [
  { name: 'echo', description: 'Echo.', input, facts: { readOnly: true }, dispatch: ({ text }) => text.length },
  { name: 'send', description: 'Send.', input, dispatch: () => 'sent' },
  { name: 'forbidden', description: 'Never runs.', input, dispatch: () => 'ran' },
];
const policy: ToolPolicy = {
  version: 3,
  decideIdentity: ({ tool }) =>
    tool.name === 'forbidden' ? { kind: 'deny', reason: 'rule_denied', matched: [{ id: 'project#0', source: 'project', decision: 'deny' }] } : { kind: 'allow', matched: [] },
  decideArguments: ({ tool }) => (tool.name === 'send' ? { kind: 'ask', reason: 'rule', matched: [{ id: 'project#1', source: 'project', decision: 'ask' }] } : { kind: 'allow', matched: [] }),
};

const only = (spans: RecordedSpan[], name: string): RecordedSpan => {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0] as RecordedSpan;
};

describe('traceRegistry, in process', () => {
  it('opens one execute_tool span per call, with the GenAI attributes, toolgate decision and policy events', async () => {
    const registry = createToolRegistry({ tools, policy });
    const { tracer, spans } = recordingTracer();
    const tracing = traceRegistry(registry, { tracer });
    const approval = createScriptedApprover('approve');
    const context = { grantedTools: ['echo', 'send', 'forbidden'], agent: 'planner', approval };
    await registry.dispatch({ callId: 'c1', name: 'echo', arguments: { text: 'hi' } }, context);
    await registry.dispatch({ callId: 'c2', name: 'send', arguments: { text: 'hi' } }, context);
    await registry.dispatch({ callId: 'c3', name: 'forbidden', arguments: { text: 'hi' } }, context);

    const echo = only(spans, 'execute_tool echo');
    expect(echo).toMatchObject({ kind: SpanKind.INTERNAL, parentId: undefined, ended: true, status: undefined });
    expect(echo.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'gen_ai.agent.name': 'planner',
      'toolgate.status': 'ok',
      'toolgate.code': 'OK',
      'toolgate.policy.decision': 'allow',
      'toolgate.approval.outcome': 'not-required',
    });
    expect(echo.attributes).not.toHaveProperty('error.type');
    expect(echo.attributes).not.toHaveProperty('mcp.method.name');

    // The approval wait is a child of the call; the ask that caused it is a span event.
    const send = only(spans, 'execute_tool send');
    const wait = only(spans, 'toolgate.approval send');
    expect(wait).toMatchObject({ parentId: send.spanId, ended: true });
    expect(wait.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'c2', 'toolgate.approval.outcome': 'approve' });
    expect(send.attributes).toMatchObject({ 'toolgate.policy.decision': 'ask', 'toolgate.approval.outcome': 'approve', 'toolgate.status': 'ok' });
    expect(send.events).toContainEqual({
      name: 'toolgate.policy.decided',
      attributes: expect.objectContaining({ 'toolgate.policy.stage': 'arguments', 'toolgate.policy.decision': 'ask', 'toolgate.policy.reason': 'rule', 'toolgate.policy.rule_ids': ['project#1'] }) as unknown,
    });

    const forbidden = only(spans, 'execute_tool forbidden');
    expect(forbidden.attributes).toMatchObject({ 'error.type': 'POLICY_DENIED', 'toolgate.status': 'denied', 'toolgate.policy.decision': 'deny' });
    expect(forbidden.status).toEqual({ code: SpanStatusCode.ERROR, message: 'POLICY_DENIED' });
    expect(forbidden.events).toEqual([
      {
        name: 'toolgate.policy.decided',
        attributes: { 'toolgate.policy.stage': 'identity', 'toolgate.policy.decision': 'deny', 'toolgate.policy.reason': 'rule_denied', 'toolgate.policy.rule_ids': ['project#0'], 'toolgate.policy.rule_sources': ['project'], 'toolgate.policy.version': 3 },
      },
    ]);
    expect(spans.filter((span) => span.name.startsWith('toolgate.approval'))).toHaveLength(1);
    expect(spans.every((span) => span.ended)).toBe(true);

    tracing.detach();
    await registry.dispatch({ callId: 'c4', name: 'echo', arguments: { text: 'hi' } }, context);
    expect(spans).toHaveLength(4);
  });

  it('records arguments only when asked, and then only the redacted projection', async () => {
    const registry = createToolRegistry({ tools, policy });
    const plain = recordingTracer();
    const withArguments = recordingTracer();
    traceRegistry(registry, { tracer: plain.tracer });
    traceRegistry(registry, { tracer: withArguments.tracer, recordArguments: true });
    await registry.dispatch({ callId: 'c1', name: 'echo', arguments: { text: `key ${SECRET}` } }, { grantedTools: ['echo'] });
    expect(only(plain.spans, 'execute_tool echo').attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
    const recorded = String(only(withArguments.spans, 'execute_tool echo').attributes['gen_ai.tool.call.arguments']);
    expect(recorded).toContain(REDACTED);
    expect(recorded).toContain('key ');
    expect(JSON.stringify([plain.spans, withArguments.spans])).not.toContain(SECRET);
  });
});

describe('traceRegistry through the gateway (the MCP SDK client, an upstream over stdio)', () => {
  let connection: McpConnection;
  let gateway: McpGateway;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  const { tracer, spans } = recordingTracer();

  beforeAll(async () => {
    connection = await connectMcpServers({ servers: [stdioUpstream('fx')] });
    const registry = createToolRegistry({
      tools: [...tools, ...connection.tools],
      host: { mcp: connection.capability },
      policy: createPolicy({ mcpServers: ['fx'], rules: [{ id: 'no-forbidden', tool: 'forbidden', decision: 'deny', source: 'project' }] }),
    });
    const tracing = traceRegistry(registry, { tracer, recordArguments: true });
    const approver = createScriptedApprover('approve');
    gateway = await serveMcp(registry, {
      transport: { kind: 'http', port: 0 },
      context: { grantedTools: registry.list().map((info) => info.key), approval: {} },
      approver: approver.confirm,
      observeCall: tracing.observeServedCall,
    });
    client = new Client({ name: 'trace-test', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(new URL(String(gateway.url)));
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    await gateway.close();
    await connection.close();
  });

  it('a served call is a tools/call server span with its session; the approval wait and the upstream call are its children', async () => {
    const result = await client.callTool({ name: 'mcp_fx_echo', arguments: { text: `token ${SECRET}` } });
    expect(result.isError).not.toBe(true);

    const served = only(spans, 'tools/call mcp_fx_echo');
    expect(served).toMatchObject({ kind: SpanKind.SERVER, parentId: undefined, ended: true, status: undefined });
    expect(served.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'mcp.session.id': transport.sessionId,
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'mcp_fx_echo',
      'gen_ai.tool.type': 'extension',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'toolgate.upstream.server': 'fx',
      // Upstream tools are governed: no rule asked, the approval regime did.
      'toolgate.policy.decision': 'allow',
      'toolgate.approval.outcome': 'approve',
      'toolgate.status': 'ok',
    });
    expect(String(served.attributes['gen_ai.tool.call.id'])).toMatch(/^mcp-/);
    expect(typeof transport.sessionId).toBe('string');

    const wait = only(spans, 'toolgate.approval mcp_fx_echo');
    expect(wait).toMatchObject({ parentId: served.spanId, ended: true });
    const upstream = only(spans, 'tools/call echo');
    expect(upstream).toMatchObject({ kind: SpanKind.CLIENT, parentId: served.spanId, ended: true, status: undefined });
    expect(upstream.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'toolgate.upstream.server': 'fx' });
    expect(served.events.map((event) => event.name)).toContain('toolgate.policy.decided');
    expect(JSON.stringify(spans)).not.toContain(SECRET);
  });

  it('a failing upstream call marks the call and the upstream span with the error code', async () => {
    const result = await client.callTool({ name: 'mcp_fx_fail', arguments: {} });
    expect(result.isError).toBe(true);
    const served = only(spans, 'tools/call mcp_fx_fail');
    const upstream = only(spans, 'tools/call fail');
    const code = served.attributes['error.type'];
    expect(typeof code).toBe('string');
    expect(code).not.toBe('tool_error');
    expect(served.status).toEqual({ code: SpanStatusCode.ERROR, message: code });
    expect(upstream).toMatchObject({ parentId: served.spanId, status: { code: SpanStatusCode.ERROR, message: code } });
    expect(upstream.attributes['error.type']).toBe(code);
  });

  it('a call refused before it runs has no upstream span, and an unknown tool is still a span with its error', async () => {
    const refused = await client.callTool({ name: 'forbidden', arguments: { text: 'x' } });
    expect(refused.isError).toBe(true);
    const served = only(spans, 'tools/call forbidden');
    expect(served.attributes['error.type']).toBe('POLICY_DENIED');
    expect(served.events).toContainEqual({ name: 'toolgate.policy.decided', attributes: expect.objectContaining({ 'toolgate.policy.decision': 'deny', 'toolgate.policy.rule_ids': ['no-forbidden'] }) as unknown });
    expect(spans.filter((span) => span.parentId === served.spanId)).toEqual([]);

    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(only(spans, 'tools/call no_such_tool').attributes['error.type']).toBe('UNKNOWN_TOOL');
  });
});
