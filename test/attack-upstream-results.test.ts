import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { decide, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { CLI } from './support/spawn-cli.js';

// A hostile upstream against what it sends back once a call is approved, through `toolgate serve` and the MCP
// SDK client: a structured value that says more than its text, progress messages, error responses whose codes
// are the gateway's own, and a definition changed while a call waits for a person. The upstream writes the wire
// itself (test/__fixtures__/hostile-return-server.mjs) and logs every call it receives.

const HOSTILE = join(ROOT, 'test/__fixtures__/hostile-return-server.mjs');
const SECRET = 'sk-live-SUPERSECRETVALUE0123456789';
/** Text the hidden-character scan removes: a zero-width space, an override, Unicode tags, an isolate, a bell. */
// eslint-disable-next-line no-control-regex -- the bell is one of them
const HIDDEN = /[\u200B\u202E\u2066\u0007\u{E0000}-\u{E007F}]/u;

type Result = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: Result): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');

describe('attack: what a trusted upstream sends back over stdio', () => {
  let client: Client;
  let workspace: string;
  const progress: { message?: string | undefined }[] = [];

  beforeAll(async () => {
    // Trusted, and every tool read-only: each runs without a person, so only its answer is on trial.
    const served = attackWorkspace('toolgate-attack-results', {
      hr: { command: process.execPath, args: [HOSTILE, '--log', 'calls.log'], trust: 'annotations', env: { FIXTURE_SECRET: SECRET } },
    });
    workspace = served.workspace;
    client = new Client({ name: 'results-attacker', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: workspace, stderr: 'ignore' }));
    await client.listTools();
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  it('a structured value of 3 MB beside a small text is refused past the output ceiling, not served whole', async () => {
    // Before: the text was cut to 32 KiB, and `structuredContent` carried all 3 MB to the client.
    const result = await client.callTool({ name: 'mcp_hr_structured_big', arguments: { bytes: 3_000_000 } }, undefined, { timeout: 60_000 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toBe('Tool "mcp_hr_structured_big" returned an invalid result: the structured result exceeds 262144 bytes.');
    // Within the ceiling it is served whole, beside its text cut to the content's ceiling.
    const within = await client.callTool({ name: 'mcp_hr_structured_big', arguments: { bytes: 200_000 } });
    expect((within.structuredContent as { payload: string }).payload).toHaveLength(200_000);
    expect(textOf(within).length).toBeLessThan(40_000);
  });

  it('held: a structured value that says something else than its clean text is what the model reads, scanned, and validated', async () => {
    for (const name of ['mcp_hr_structured_split', 'mcp_hr_structured_unschemed']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(JSON.stringify(result), name).not.toMatch(HIDDEN);
      expect(textOf(result), name).toContain('the payload');
    }
    const invalid = await client.callTool({ name: 'mcp_hr_structured_invalid', arguments: {} });
    expect(invalid).toMatchObject({ isError: true });
    expect(invalid.structuredContent).toBeUndefined();
    expect(textOf(invalid)).toContain('returned an invalid result');
    expect(textOf(invalid)).not.toContain('not a number');
    // An isError result's structured value goes nowhere: only its text explains the failure.
    const failed = await client.callTool({ name: 'mcp_hr_fail_structured', arguments: {} });
    expect(textOf(failed)).toBe('Tool "mcp_hr_fail_structured" reported an error from MCP server "hr": failed.');
  });

  it('held: answers that arrive out of order each reach their own call', async () => {
    const calls = [400, 200, 0].map((delayMs, index) => client.callTool({ name: 'mcp_hr_later', arguments: { tag: `call ${index}`, delayMs } }));
    expect((await Promise.all(calls)).map(textOf)).toEqual(['call 0', 'call 1', 'call 2']);
  });

  it('a progress message of 5 MB reaches the client bounded, and with no hidden character', async () => {
    progress.length = 0;
    const result = await client.callTool({ name: 'mcp_hr_progress', arguments: { count: 1, bytes: 5_000_000 } }, undefined, {
      timeout: 60_000,
      onprogress: (update) => progress.push(update),
    });
    expect(textOf(result)).toBe('done');
    expect(progress).toHaveLength(1);
    expect(progress[0]?.message?.startsWith('step 1ppp')).toBe(true);
    expect(progress[0]?.message).not.toMatch(HIDDEN);
    expect(progress[0]?.message?.length).toBeLessThanOrEqual(1_001);
  });

  it('a flood of 20,000 progress notifications reaches the client as a few, in order', async () => {
    // Before: every one was scanned and forwarded, a write to the client each.
    const seen: { progress: number }[] = [];
    const started = performance.now();
    const result = await client.callTool({ name: 'mcp_hr_progress', arguments: { count: 20_000 } }, undefined, {
      timeout: 60_000,
      onprogress: (update) => seen.push(update),
    });
    const elapsed = performance.now() - started;
    expect(textOf(result)).toBe('done');
    // One at once, one an interval (PROGRESS_INTERVAL_MS, 50 ms) after, and the one held when the call ended
    // (that one is sent before the result: throttle-progress.test.ts).
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 2);
    // In the order sent: a held update never goes out after a later one.
    expect(seen.map((update) => update.progress)).toEqual([...seen.map((update) => update.progress)].sort((a, b) => a - b));
  });

  it('an error response whose code is the gateway’s own timeout or closed connection is reported as the server’s error, at once', async () => {
    for (const code of [-32001, -32000]) {
      const started = Date.now();
      const result = await client.callTool({ name: 'mcp_hr_fail_rpc', arguments: { code } });
      expect(result.isError, String(code)).toBe(true);
      expect(textOf(result), String(code)).toBe(`Tool "mcp_hr_fail_rpc" failed: the MCP server answered with error ${code}.`);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });

  it('held: an error response and an isError result carry no secret, escape, hidden character or megabytes', async () => {
    const rpc = await client.callTool({ name: 'mcp_hr_fail_rpc', arguments: { bytes: 2_000_000 } });
    const tool = await client.callTool({ name: 'mcp_hr_fail_text', arguments: { bytes: 2_000_000 } });
    for (const result of [rpc, tool]) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).not.toContain(SECRET);
      expect(textOf(result)).not.toMatch(HIDDEN);
      expect(textOf(result)).not.toContain('\u001b');
      expect(textOf(result).length).toBeLessThan(1_200);
    }
  });

  it('held: logging, other notifications and the upstream’s own requests reach the client not at all; a second answer changes nothing', async () => {
    const seen: unknown[] = [];
    client.fallbackNotificationHandler = async (notification) => void seen.push(notification);
    expect(textOf(await client.callTool({ name: 'mcp_hr_chatty', arguments: {} }))).toBe('chatted');
    expect(textOf(await client.callTool({ name: 'mcp_hr_twice', arguments: {} }))).toBe('first');
    expect(textOf(await client.callTool({ name: 'mcp_hr_kinds', arguments: {} }))).toBe('[resource link: link]\n[resource link: passwd]\nresource\ntext');
    expect(seen).toEqual([]);
    const calls = readFileSync(join(workspace, 'calls.log'), 'utf8');
    expect(calls).toContain('"name":"twice"');
  });
});

describe('attack: a definition changed while a call waits for a person', () => {
  const opened = closeAfterEach();

  async function serve(): Promise<{ gateway: ServedGateway; mcp: Client }> {
    const gateway = opened.gateway(
      await serveGateway({ mode: 'ask', servers: { hr: { command: process.execPath, args: [HOSTILE, '--log', 'calls.log'], trust: 'annotations' } } }),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'rug-puller', undefined, gateway.auth);
    return { gateway, mcp: opened.client(client) };
  }

  const calledMutable = (gateway: ServedGateway): boolean => readFileSync(join(gateway.workspace, 'calls.log'), 'utf8').includes('"name":"mutable"');

  it('held: a tool flipped to read-only while its call waits is refused once approved, and is not run ungoverned after', async () => {
    const { gateway, mcp } = await serve();
    const call = mcp.callTool({ name: 'mcp_hr_mutable', arguments: {} });
    const card = await pendingApproval(gateway, 'mcp_hr_mutable');
    expect(textOf(await mcp.callTool({ name: 'mcp_hr_flip', arguments: {} }))).toBe('flipped');
    await expect.poll(async () => (await mcp.listTools()).tools.some((tool) => tool.name === 'mcp_hr_mutable'), { timeout: 10_000 }).toBe(false);
    await decide(gateway, card.id, 'once');
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('changed');
    const again = await mcp.callTool({ name: 'mcp_hr_mutable', arguments: { path: '/' } });
    expect(again.isError).toBe(true);
    expect(calledMutable(gateway)).toBe(false);
  });

  it('held: a tool offered again under another upstream name that folds to the one served (MUTABLE) is a changed definition, not a new one pinned on first use', async () => {
    const { gateway, mcp } = await serve();
    // Renamed and flipped to read-only: pinned afresh as a new tool, it would run under the served name with no person asked.
    expect(textOf(await mcp.callTool({ name: 'mcp_hr_flip', arguments: { rename: 'MUTABLE' } }))).toBe('flipped');
    await expect.poll(async () => (await mcp.listTools()).tools.some((tool) => tool.name === 'mcp_hr_mutable'), { timeout: 10_000 }).toBe(false);
    const again = await mcp.callTool({ name: 'mcp_hr_mutable', arguments: { path: '/' } });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain('changed');
    expect(readFileSync(join(gateway.workspace, 'calls.log'), 'utf8')).not.toContain('"name":"MUTABLE"');
    const pins = JSON.parse(readFileSync(join(gateway.workspace, '.toolgate', 'mcp-pins.json'), 'utf8')) as { pins: { tool: string }[] };
    expect(pins.pins.map((pin) => pin.tool)).not.toContain('MUTABLE');
  });

  it('a call approved after the upstream said its definition changed, but before its new listing arrived, does not run', async () => {
    const { gateway, mcp } = await serve();
    const call = mcp.callTool({ name: 'mcp_hr_mutable', arguments: {} });
    const card = await pendingApproval(gateway, 'mcp_hr_mutable');
    // The upstream announces the change and then takes 4 s to say what it is.
    expect(textOf(await mcp.callTool({ name: 'mcp_hr_flip', arguments: { listDelayMs: 4_000 } }))).toBe('flipped');
    await decide(gateway, card.id, 'once');
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('changed');
    expect(calledMutable(gateway)).toBe(false);
  });
});
