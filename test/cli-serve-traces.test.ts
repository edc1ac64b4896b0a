import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { UPSTREAM } from './fixtures/mcp/helpers.js';
import { connectClient, makeWorkspace, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

/**
 * `toolgate serve` with OTEL_EXPORTER_OTLP_ENDPOINT set, end to end: the
 * built CLI, the real MCP SDK client, an upstream over stdio, and an
 * OTLP/HTTP receiver on loopback that keeps every byte the gateway sends.
 * The SDK packages are optional: without them (hidden from Node's resolver)
 * the gateway refuses to start and says which to install; with them, the
 * spans arrive.
 */
const SECRET = 'sk-abcdefghijklmnopqrstuvwxyz123456';
const TIMEOUT = 90_000;
const sdkInstalled = (() => {
  try {
    createRequire(import.meta.url).resolve('@opentelemetry/sdk-trace');
    return true;
  } catch {
    return false;
  }
})();

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: string | number;
  readonly boolValue?: boolean;
  readonly arrayValue?: { readonly values: OtlpValue[] };
}
interface OtlpSpan {
  readonly name: string;
  readonly kind: number;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: { key: string; value: OtlpValue }[];
  readonly events?: { name: string; attributes: { key: string; value: OtlpValue }[] }[];
  readonly status?: { code?: number; message?: string };
}
interface OtlpExport {
  readonly resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

/** An OTLP/HTTP receiver on 127.0.0.1: every request's path, content type and raw body. */
async function startReceiver(): Promise<{ url: string; requests: { path: string; type: string; body: Buffer }[]; server: Server }> {
  const requests: { path: string; type: string; body: Buffer }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', type: request.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

const value = (attributes: { key: string; value: OtlpValue }[], key: string): unknown => {
  const found = attributes.find((attribute) => attribute.key === key)?.value;
  if (found === undefined) return undefined;
  return found.stringValue ?? found.intValue ?? found.boolValue ?? found.arrayValue?.values.map((entry) => entry.stringValue);
};

let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
let gateway: ServedGateway | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await gateway?.cli.stop();
  receiver?.server.close();
  client = undefined;
  gateway = undefined;
  receiver = undefined;
});

describe.runIf(sdkInstalled)('toolgate serve exports its spans over OTLP/HTTP', () => {
  it(
    'sends one tools/call span per call, with the approval wait and the upstream call as children, and never a secret from the arguments',
    async () => {
      receiver = await startReceiver();
      gateway = await serveGateway(
        { mode: 'accept-edits', scope: 'workspace-write', servers: { fx: { command: process.execPath, args: [UPSTREAM] } }, policy: { allow: ['Write(./notes.md)'] } },
        { files: { 'notes.md': 'first\n' }, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gateway-under-test' } },
      );
      const connected = await connectClient(gateway.mcpUrl, 'trace-client', undefined, gateway.auth);
      client = connected.client;
      const served = gateway;

      // A governed upstream call waits for a person: approve it in the console.
      const echo = client.callTool({ name: 'mcp_fx_echo', arguments: { text: `token ${SECRET}` } });
      await expect.poll(async () => ((await served.api('/api/approvals')).body as unknown[]).length, { timeout: 20_000 }).toBe(1);
      const [pending] = (await served.api('/api/approvals')).body as { id: string }[];
      expect((await served.api(`/api/approvals/${pending?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'once' }) })).status).toBe(200);
      expect((await echo).isError).not.toBe(true);
      // Allowed by a rule, and a secret in what it writes.
      expect((await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: `password=${SECRET}\n` } })).isError).not.toBe(true);
      // Refused by the floor.
      expect((await client.callTool({ name: 'read_file', arguments: { path: '/etc/passwd' } })).isError).toBe(true);

      // Stopping the gateway flushes what is still batched.
      await served.cli.stop();
      const received = receiver.requests;
      expect(received.length).toBeGreaterThan(0);
      expect(received.every((request) => request.path === '/v1/traces' && request.type.startsWith('application/json'))).toBe(true);
      for (const request of received) expect(request.body.includes(SECRET)).toBe(false);
      expect(received.some((request) => request.body.includes('sk-abcdefgh'))).toBe(false);

      const exports = received.map((request) => JSON.parse(request.body.toString('utf8')) as OtlpExport);
      expect(value(exports[0]?.resourceSpans[0]?.resource.attributes ?? [], 'service.name')).toBe('gateway-under-test');
      const spans = exports.flatMap((document) => document.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
      const named = (name: string): OtlpSpan => {
        const found = spans.filter((span) => span.name === name);
        expect(found.map((span) => span.name)).toEqual([name]);
        return found[0] as OtlpSpan;
      };

      const call = named('tools/call mcp_fx_echo');
      expect(call.kind).toBe(2); // SERVER
      expect(call.parentSpanId ?? '').toBe('');
      expect(value(call.attributes, 'mcp.method.name')).toBe('tools/call');
      expect(value(call.attributes, 'gen_ai.operation.name')).toBe('execute_tool');
      expect(value(call.attributes, 'gen_ai.tool.name')).toBe('mcp_fx_echo');
      expect(value(call.attributes, 'gen_ai.tool.call.id')).toMatch(/^mcp-/);
      expect(value(call.attributes, 'mcp.session.id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(value(call.attributes, 'toolgate.upstream.server')).toBe('fx');
      expect(value(call.attributes, 'toolgate.approval.outcome')).toBe('approve');
      expect(value(call.attributes, 'toolgate.status')).toBe('ok');
      const children = spans.filter((span) => span.parentSpanId === call.spanId).map((span) => span.name);
      expect(children.sort()).toEqual(['toolgate.approval mcp_fx_echo', 'tools/call echo']);
      expect(named('tools/call echo').kind).toBe(3); // CLIENT

      const write = named('tools/call write_file');
      expect(value(write.attributes, 'toolgate.policy.decision')).toBe('allow');
      expect(write.events?.some((event) => event.name === 'toolgate.policy.decided')).toBe(true);

      const refused = named('tools/call read_file');
      expect(value(refused.attributes, 'error.type')).toBe('POLICY_DENIED');
      expect(refused.status?.code).toBe(2); // ERROR
      expect(spans.filter((span) => span.parentSpanId === refused.spanId)).toEqual([]);
    },
    TIMEOUT,
  );
});

/**
 * Node started with this runs as if the SDK packages were not installed: a
 * resolve hook, registered before the CLI loads, answers each of them the
 * way Node answers a package that is not there. The API stays resolvable.
 */
const HIDE_SDK_HOOKS = `const ABSENT = ${JSON.stringify(['@opentelemetry/sdk-trace', '@opentelemetry/resources', '@opentelemetry/exporter-trace-otlp-http'])};
export async function resolve(specifier, context, next) {
  if (ABSENT.some((name) => specifier === name || specifier.startsWith(name + "/"))) {
    const error = new Error("Cannot find package " + specifier);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}`;
const WITHOUT_SDK = `--import=data:text/javascript,${encodeURIComponent(`import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HIDE_SDK_HOOKS)}`)});`)}`;

describe('toolgate serve without the OpenTelemetry SDK packages', () => {
  it('refuses to start when OTEL_EXPORTER_OTLP_ENDPOINT is set, naming what to install', async () => {
    const workspace = makeWorkspace({});
    const result = await runCli(['serve', '--http', '0'], workspace, undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', NODE_OPTIONS: WITHOUT_SDK });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('OTEL_EXPORTER_OTLP_ENDPOINT is set');
    expect(result.stderr).toContain('@opentelemetry/sdk-trace');
    expect(result.stderr).toContain('npm install');
  });

  it('starts without them when no collector is named', async () => {
    const workspace = makeWorkspace({});
    const result = await runCli(['tools'], workspace, undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined, NODE_OPTIONS: WITHOUT_SDK });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
