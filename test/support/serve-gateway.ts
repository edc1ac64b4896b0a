import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Stream } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { gatewayAuth, startCli, type CliUser, type RunningCli } from './spawn-cli.js';

/** A `toolgate serve --http 0` child in a fresh workspace, with its console API. */
export interface ServedGateway {
  readonly cli: RunningCli;
  readonly workspace: string;
  readonly mcpUrl: URL;
  /** The bearer token every MCP request needs, as transport options. */
  readonly auth: { requestInit: RequestInit };
  readonly consoleUrl: URL | undefined;
  /** A console API request with the console token; resolves with the status and the JSON body. */
  api(path: string, init?: RequestInit): Promise<{ status: number; body: unknown }>;
}

/** A new workspace in `parent` (default: the temporary folder) holding `toolgate.config.json` (`config`) and `files` (a name may hold folders: `.claude/settings.json`). */
export function makeWorkspace(config: object, files: Record<string, string> = {}, parent = tmpdir()): string {
  const workspace = mkdtempSync(join(parent, 'toolgate-serve-gateway-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify(config));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, name)), { recursive: true });
    writeFileSync(join(workspace, name), text);
  }
  return workspace;
}

/** Write `config` (and `files`) into a new workspace (in `parent`) and serve it over HTTP; `env` adds to the child's environment, `inherit` to its descriptors (see `startCli`). */
export async function serveGateway(
  config: object,
  options: { files?: Record<string, string>; parent?: string; args?: readonly string[]; env?: NodeJS.ProcessEnv; inherit?: readonly (Stream | 'ignore')[] } = {},
): Promise<ServedGateway> {
  return serveWorkspace(makeWorkspace(config, options.files, options.parent), options);
}

/** Serve an existing workspace over HTTP (a gateway started again where an earlier one ran); options as for `serveGateway`, and `user` to run it as. */
export async function serveWorkspace(
  workspace: string,
  options: { args?: readonly string[]; env?: NodeJS.ProcessEnv; inherit?: readonly (Stream | 'ignore')[]; user?: CliUser } = {},
): Promise<ServedGateway> {
  const cli = startCli(['--json', 'serve', '--http', '0', ...(options.args ?? [])], workspace, options.env, options.inherit, options.user);
  const started = await cli.ready;
  const consoleUrl = typeof started.console === 'string' ? new URL(started.console) : undefined;
  return {
    cli,
    workspace,
    mcpUrl: new URL(String(started.mcp)),
    auth: gatewayAuth(started),
    consoleUrl,
    api: (path, init = {}) => consoleApi(consoleUrl, path, init),
  };
}

/** A request to a console's API, with its token. */
export async function consoleApi(consoleUrl: URL | undefined, path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  if (consoleUrl === undefined) throw new Error('the gateway runs without a console');
  const token = consoleUrl.searchParams.get('token') ?? '';
  const response = await fetch(new URL(path, consoleUrl), { ...init, headers: { 'x-toolgate-token': token, 'content-type': 'application/json' } });
  return { status: response.status, body: await response.json() };
}

/** An MCP client named `name`; with `elicit`, it declares elicitation and answers every request with `approve: elicit`. */
export async function connectClient(url: URL, name: string, elicit: boolean | undefined, auth: { requestInit: RequestInit }): Promise<{ client: Client; asked: unknown[] }> {
  const asked: unknown[] = [];
  const client = new Client({ name, version: '1.0.0' }, { capabilities: elicit === undefined ? {} : { elicitation: {} } });
  if (elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { approve: elicit } };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(url, auth));
  return { client, asked };
}

/** The console's Server-Sent Events, collected as they arrive (`type` is the event name). */
export function watchConsole(consoleUrl: URL): { events: { type: string; data: unknown }[]; stop: () => void } {
  const events: { type: string; data: unknown }[] = [];
  const controller = new AbortController();
  const token = consoleUrl.searchParams.get('token') ?? '';
  void fetch(new URL('/api/events', consoleUrl), { headers: { 'x-toolgate-token': token }, signal: controller.signal })
    .then(async (response) => {
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.+)$/m.exec(frame)?.[1];
          const data = /^data: (.+)$/m.exec(frame)?.[1];
          if (type !== undefined && data !== undefined) events.push({ type, data: JSON.parse(data) as unknown });
          end = buffer.indexOf('\n\n');
        }
      }
    })
    .catch(() => undefined);
  return { events, stop: () => controller.abort() };
}

/** What a test opens: `gateway` and `client` keep one and return it. */
export interface OpenedByTest {
  gateway(gateway: ServedGateway): ServedGateway;
  client(client: Client): Client;
  /** `toolgate serve` on `workspace` and an SDK client of it named `attacker`, both kept. */
  serve(workspace: string): Promise<{ gateway: ServedGateway; mcp: Client }>;
}

/** What a test file opens, closed after each test. */
export function closeAfterEach(): OpenedByTest {
  const opened = keptUntilClosed();
  afterEach(opened.close);
  return opened;
}

/**
 * One gateway on a new workspace of `config` and `files`, and an SDK client of it named `attacker`, for a describe
 * block: started before its first test, closed after its last. For cases that change nothing another case reads.
 */
export function servedForBlock(config: object, options: { files?: Record<string, string>; args?: readonly string[] } = {}): () => { gateway: ServedGateway; mcp: Client } {
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    gateway = await serveGateway(config, options);
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    await mcp?.close();
    await gateway?.cli.stop();
  });
  return () => ({ gateway: gateway as ServedGateway, mcp: mcp as Client });
}

function keptUntilClosed(): OpenedByTest & { readonly close: () => Promise<void> } {
  let gateways: ServedGateway[] = [];
  let clients: Client[] = [];
  const gateway = (served: ServedGateway): ServedGateway => (gateways.push(served), served);
  const client = (connected: Client): Client => (clients.push(connected), connected);
  return {
    gateway,
    client,
    serve: async (workspace) => {
      const served = gateway(await serveWorkspace(workspace));
      return { gateway: served, mcp: client((await connectClient(served.mcpUrl, 'attacker', undefined, served.auth)).client) };
    },
    close: async () => {
      await Promise.allSettled(clients.map((connected) => connected.close()));
      await Promise.allSettled(gateways.map((served) => served.cli.stop()));
      gateways = [];
      clients = [];
    },
  };
}
