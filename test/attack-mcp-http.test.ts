import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useHostileSite } from './support/hostile-site.js';
import { pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, consoleApi, makeWorkspace, serveGateway } from './support/serve-gateway.js';
import { startCli, type RunningCli } from './support/spawn-cli.js';

/*
 * The MCP endpoint of `toolgate serve --http` against what a hostile page or
 * another local process can send it: the variants next to the foreign Host
 * and Origin of mcp-serve.test.ts. Without a token (`--no-token`) the Host
 * and Origin checks and the JSON content type are all that stand between a
 * page the operator has open and the tools.
 */

const opened = closeAfterEach();
let bare: RunningCli | undefined;
afterEach(async () => {
  await bare?.stop();
  bare = undefined;
});

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });
const WRITE = { name: 'write_file', arguments: { path: 'pwned.txt', content: 'pwned\n' } };

/** A raw POST: the status, the session it opened (if any) and the body. */
function post(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; session: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port: url.port, path: url.pathname, method: 'POST', headers, setHost: false }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, session: response.headers['mcp-session-id'] as string | undefined, body: text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** `serve --http 0 --no-token` with writes in the workspace allowed without asking: whatever reaches a tool writes. */
async function serveWithoutToken(): Promise<{ mcpUrl: URL; workspace: string }> {
  const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits' });
  bare = startCli(['--json', 'serve', '--http', '0', '--no-token'], workspace);
  const started = await bare.ready;
  return { mcpUrl: new URL(String(started.mcp)), workspace };
}

describe('attack: the MCP endpoint without a token, from another Host, Origin or content type', () => {
  it('refuses every loopback spelling but its own, Origin null and another loopback port, and a simple (text/plain) POST; opens no session', async () => {
    const { mcpUrl, workspace } = await serveWithoutToken();
    const port = mcpUrl.port;
    const json = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const own = `127.0.0.1:${port}`;
    const refused: [Record<string, string>, number][] = [
      [{ host: `rebound.example:${port}` }, 403],
      [{ host: `127.1:${port}` }, 403],
      [{ host: `0.0.0.0:${port}` }, 403],
      [{ host: `LOCALHOST:${port}` }, 403],
      [{ host: `localhost.:${port}` }, 403],
      [{ host: '127.0.0.1' }, 403],
      [{ host: own, origin: 'null' }, 403],
      [{ host: own, origin: 'http://127.0.0.1:1' }, 403],
      [{ host: own, origin: `http://127.0.0.2:${port}` }, 403],
      [{ host: own, origin: `https://127.0.0.1:${port}` }, 403],
      // What a page can send without a preflight: a CORS-safelisted content type, JSON in its parameter included.
      [{ host: own, 'content-type': 'text/plain' }, 415],
      [{ host: own, 'content-type': 'text/plain; a=application/json' }, 415],
      [{ host: own, 'content-type': 'application/x-www-form-urlencoded' }, 415],
      [{ host: own, 'content-type': 'multipart/form-data; boundary=x' }, 415],
    ];
    for (const [headers, status] of refused) {
      const answer = await post(mcpUrl, { ...json, ...headers }, INITIALIZE);
      expect({ headers, status: answer.status, session: answer.session }).toEqual({ headers, status, session: undefined });
    }
    // The control: its own Host and Origin open a session.
    expect((await post(mcpUrl, { ...json, host: own, origin: `http://${own}` }, INITIALIZE)).status).toBe(200);
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
  });
});

describe('attack, in the browser: a page on another loopback port posts to the MCP endpoint that asks for no token', () => {
  const site = useHostileSite();

  it('reaches no tool: a text/plain form, a no-cors fetch, a beacon and a CORS fetch are each refused, and nothing is written', async () => {
    const { mcpUrl, workspace } = await serveWithoutToken();
    const call = JSON.stringify([JSON.parse(INITIALIZE), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: WRITE }]);
    const target = String(mcpUrl);
    const page = `<!doctype html><body><iframe name="sink"></iframe>
<form id="plain" method="POST" action="${target}" enctype="text/plain" target="sink"><input name='${call.slice(0, -2)}' value='${call.slice(-2)}'></form>
<script>
const body = ${JSON.stringify(call)};
const report = [];
(async () => {
  document.getElementById('plain').submit();
  await new Promise((r) => setTimeout(r, 300));
  await fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', headers: { accept: 'application/json, text/event-stream', 'content-type': 'text/plain; a=application/json' }, body }).then(() => report.push('no-cors sent'), () => report.push('no-cors failed'));
  report.push('beacon ' + navigator.sendBeacon(${JSON.stringify(target)}, new Blob([body], { type: 'text/plain' })));
  await fetch(${JSON.stringify(target)}, { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, body }).then((r) => report.push('cors read ' + r.status), () => report.push('cors refused'));
  window.report = report;
  document.title = 'done';
})();
</script></body>`;
    const hostileUrl = await site.serve(() => page);
    const answered: string[] = [];
    const context = await site.browser().newContext();
    const attacker = await context.newPage();
    attacker.on('response', (response) => {
      if (response.url() === target) answered.push(`${response.request().method()} ${response.status()}`);
    });
    await attacker.goto(hostileUrl);
    await expect.poll(() => attacker.title(), { timeout: 20_000 }).toBe('done');
    expect(await attacker.evaluate<string[]>('window.report')).toEqual(['no-cors sent', 'beacon true', 'cors refused']);
    // The form, the no-cors fetch and the beacon reach the endpoint and are refused for their Origin (before their content type is looked at); the CORS fetch never passes its preflight.
    expect(answered.filter((entry) => entry.startsWith('POST'))).toEqual(['POST 403', 'POST 403', 'POST 403']);
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
    await context.close();
  });
});

describe('attack: one MCP session reaching into another', () => {
  it('a cancellation or a progress token naming another session’s request touches nothing there, and a session ended by DELETE answers nothing', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }));
    const token = String((gateway.auth.requestInit.headers as Record<string, string>).Authorization);
    const own = `127.0.0.1:${gateway.mcpUrl.port}`;
    const base = { host: own, authorization: token, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const open = async (): Promise<Record<string, string>> => {
      const session = (await post(gateway.mcpUrl, base, INITIALIZE)).session as string;
      const headers = { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
      await post(gateway.mcpUrl, headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      return headers;
    };
    const victim = await open();
    const attacker = await open();
    const waiting = post(gateway.mcpUrl, victim, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { ...WRITE, _meta: { progressToken: 'p' } } }));
    const card = await pendingApproval(gateway, 'write_file');
    // The attacker names the victim's request id and progress token in its own session.
    expect((await post(gateway.mcpUrl, attacker, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }))).status).toBe(202);
    expect((await post(gateway.mcpUrl, attacker, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } }))).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(((await consoleApi(gateway.consoleUrl, '/api/approvals')).body as { id: string }[]).map((entry) => entry.id)).toEqual([card.id]);
    // Ended by DELETE, the attacker's session answers nothing, and its id opens nothing new.
    const ended = await new Promise<number>((resolve, reject) => {
      const sent = request({ host: '127.0.0.1', port: gateway.mcpUrl.port, path: gateway.mcpUrl.pathname, method: 'DELETE', headers: attacker }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      sent.on('error', reject);
      sent.end();
    });
    expect(ended).toBe(200);
    expect((await post(gateway.mcpUrl, attacker, JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: WRITE }))).status).toBe(404);
    expect((await post(gateway.mcpUrl, attacker, INITIALIZE)).status).toBe(404);
    // The victim's approval still waits for the operator; rejected, nothing is written.
    expect((await consoleApi(gateway.consoleUrl, `/api/approvals/${card.id}`, { method: 'POST', body: JSON.stringify({ decision: 'reject' }) })).status).toBe(200);
    expect((await waiting).body).toContain('"isError":true');
    expect(existsSync(join(gateway.workspace, 'pwned.txt'))).toBe(false);
  });

  it('a batch holding two writes under one request id: the second is refused while the first is in flight, and approving the first writes that one alone', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }));
    const token = String((gateway.auth.requestInit.headers as Record<string, string>).Authorization);
    const base = { host: `127.0.0.1:${gateway.mcpUrl.port}`, authorization: token, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const session = (await post(gateway.mcpUrl, base, INITIALIZE.replace('2025-06-18', '2025-03-26'))).session as string;
    const headers = { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' };
    await post(gateway.mcpUrl, headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const write = (path: string) => ({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: { path, content: path } } });
    const answered = post(gateway.mcpUrl, headers, JSON.stringify([write('a.txt'), write('b.txt'), { jsonrpc: '2.0', id: 3, method: 'tools/list' }]));
    const listed = async (): Promise<{ id: string; target?: { files: { path: string }[] } }[]> => (await consoleApi(gateway.consoleUrl, '/api/approvals')).body as { id: string; target?: { files: { path: string }[] } }[];
    await expect.poll(async () => (await listed()).length, { timeout: 20_000 }).toBe(1);
    // Only the first write asks: the second, under the id of one in flight, never reaches the pipeline.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cards = await listed();
    expect(cards.map((card) => card.target?.files[0]?.path)).toEqual(['a.txt']);
    expect((await consoleApi(gateway.consoleUrl, `/api/approvals/${cards[0]?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'once' }) })).status).toBe(200);
    await expect.poll(() => existsSync(join(gateway.workspace, 'a.txt')), { timeout: 10_000 }).toBe(true);
    const answer = await answered;
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('"code":-32600');
    expect(answer.body).toContain('already in flight');
    expect(await listed()).toEqual([]);
    expect(existsSync(join(gateway.workspace, 'b.txt'))).toBe(false);
  });
});
