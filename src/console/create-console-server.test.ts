import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry, defineTool, type ToolPolicy } from '../core/internal.js';
import { createFakeHost } from '../testing/index.js';
import { createApprovalQueue } from './approval-queue.js';
import { startConsole } from './create-console-server.js';
import type { ConsoleServer } from './console-types.js';

const allowAll: ToolPolicy = { version: 1, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'allow', matched: [] }) };

const writeNote = defineTool({
  name: 'write_note',
  description: 'Write a note',
  input: z.object({ path: z.string(), content: z.string() }),
  policy: { fsScoped: true, fsWrite: true },
  policyTarget: (args) => ({ path: args.path }),
  dispatch: async (args, host) => host.fs?.writeFile(args.path, args.content),
});

function raw(port: number, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('console server', () => {
  let server: ConsoleServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const setup = async () => {
    const host = createFakeHost();
    const registry = createToolRegistry({ tools: [writeNote], host, policy: allowAll });
    const approvals = createApprovalQueue();
    server = await startConsole({ registry, approvals });
    return { host, registry, approvals, server };
  };

  it('binds to loopback and refuses requests without the token', async () => {
    const { server } = await setup();
    const host = `127.0.0.1:${server.port}`;
    expect((await raw(server.port, '/', { host })).status).toBe(401);
    expect((await raw(server.port, '/api/approvals', { host, 'x-toolgate-token': 'wrong' })).status).toBe(401);
    expect((await raw(server.port, `/?token=${server.token}`, { host })).status).toBe(200);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
  });

  it('lists the unresolved claims its source reports, behind the token; none without a source', async () => {
    const { server: plain } = await setup();
    const host = (port: number) => `127.0.0.1:${port}`;
    expect(JSON.parse((await raw(plain.port, '/api/unresolved', { host: host(plain.port), 'x-toolgate-token': plain.token })).body)).toEqual([]);
    const claim = { key: 'a:c1', claimId: 'claim-1', toolName: 'mcp_fx_effect', callId: 'c1', runId: undefined, startedAt: 1, holder: 'pid 1 on h' };
    const withClaims = await startConsole({ registry: createToolRegistry({ tools: [writeNote], host: createFakeHost(), policy: allowAll }), approvals: createApprovalQueue(), unresolved: () => Promise.resolve([claim]) });
    try {
      expect((await raw(withClaims.port, '/api/unresolved', { host: host(withClaims.port) })).status).toBe(401);
      const listed = await raw(withClaims.port, '/api/unresolved', { host: host(withClaims.port), 'x-toolgate-token': withClaims.token });
      expect(JSON.parse(listed.body)).toEqual([{ key: 'a:c1', claimId: 'claim-1', toolName: 'mcp_fx_effect', callId: 'c1', startedAt: 1, holder: 'pid 1 on h' }]);
    } finally {
      await withClaims.close();
    }
  });

  it('takes the token in the URL only to load the page: a decision or an API read sent that way is refused, and the approval stays pending', async () => {
    const { host, registry, approvals, server } = await setup();
    void registry.dispatch({ callId: 'q1', name: 'write_note', arguments: { path: 'notes/q.md', content: 'x' } }, { grantedTools: ['write_note'], approval: { confirm: approvals.confirm } });
    await expect.poll(() => approvals.pending().length).toBe(1);
    const id = approvals.pending()[0]?.id ?? '';
    const origin = `http://127.0.0.1:${server.port}`;
    const headers = { host: `127.0.0.1:${server.port}`, origin, 'content-type': 'application/json' };
    const decided = await raw(server.port, `/api/approvals/${id}?token=${server.token}`, headers, 'POST', JSON.stringify({ decision: 'once' }));
    expect(decided.status).toBe(401);
    expect((await raw(server.port, `/?token=${server.token}`, headers, 'POST', JSON.stringify({ decision: 'once' }))).status).toBe(401);
    for (const path of ['/api/approvals', '/api/events', '/api/receipts', '/api/policy']) expect((await raw(server.port, `${path}?token=${server.token}`, headers)).status).toBe(401);
    expect(approvals.pending().map((pending) => pending.id)).toEqual([id]);
    expect(host.calls).toHaveLength(0);
  });

  it('loading the page sets an HttpOnly, SameSite=Strict cookie for this console, which carries the API and a same-origin decision', async () => {
    const { host, registry, approvals, server } = await setup();
    const page = await raw(server.port, `/?token=${server.token}`, { host: `127.0.0.1:${server.port}` });
    expect(page.status).toBe(200);
    const cookie = `toolgate_console_${server.port}=${server.token}`;
    expect(page.headers['set-cookie']).toEqual([`${cookie}; HttpOnly; SameSite=Strict; Path=/`]);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');

    const pending = registry.dispatch({ callId: 'k1', name: 'write_note', arguments: { path: 'notes/k.md', content: 'by cookie' } }, { grantedTools: ['write_note'], approval: { confirm: approvals.confirm } });
    await expect.poll(() => approvals.pending().length).toBe(1);
    const base = { host: `127.0.0.1:${server.port}`, 'content-type': 'application/json' };
    const listed = JSON.parse((await raw(server.port, '/api/approvals', { ...base, cookie: `other=1; ${cookie}` })).body) as { id: string }[];
    const id = listed[0]?.id ?? '';
    expect(id).not.toBe('');
    // Another console's cookie, a wrong value, or a cookie sent without saying where the request comes from: refused.
    expect((await raw(server.port, '/api/approvals', { ...base, cookie: `toolgate_console_1=${server.token}` })).status).toBe(401);
    expect((await raw(server.port, '/api/approvals', { ...base, cookie: `toolgate_console_${server.port}=wrong` })).status).toBe(401);
    const decide = (headers: Record<string, string>) => raw(server.port, `/api/approvals/${id}`, { ...base, ...headers }, 'POST', JSON.stringify({ decision: 'once' }));
    expect((await decide({ cookie })).status).toBe(403);
    expect((await decide({ cookie, origin: 'http://127.0.0.1:1' })).status).toBe(403);
    expect(approvals.pending()).toHaveLength(1);
    expect((await decide({ cookie, origin: `http://127.0.0.1:${server.port}` })).status).toBe(200);
    expect((await pending).ok).toBe(true);
    expect(host.files.get('notes/k.md')).toBe('by cookie');
  });

  it('refuses what the cookie alone carries from another site (another loopback port): the page, the API, a decision; the printed address and the header still work', async () => {
    const { approvals, registry, server } = await setup();
    const pending = registry.dispatch({ callId: 's1', name: 'write_note', arguments: { path: 'notes/s.md', content: 'x' } }, { grantedTools: ['write_note'], approval: { confirm: approvals.confirm } });
    await expect.poll(() => approvals.pending().length).toBe(1);
    const id = approvals.pending()[0]?.id ?? '';
    const host = `127.0.0.1:${server.port}`;
    const cookie = `toolgate_console_${server.port}=${server.token}`;
    const origin = `http://${host}`;
    for (const site of ['same-site', 'cross-site']) {
      expect((await raw(server.port, '/', { host, cookie, 'sec-fetch-site': site })).status).toBe(403);
      expect((await raw(server.port, '/api/approvals', { host, cookie, 'sec-fetch-site': site })).status).toBe(403);
      expect((await raw(server.port, '/api/events', { host, cookie, 'sec-fetch-site': site })).status).toBe(403);
      expect((await raw(server.port, `/api/approvals/${id}`, { host, cookie, origin, 'sec-fetch-site': site }, 'POST', JSON.stringify({ decision: 'once' }))).status).toBe(403);
    }
    expect(approvals.pending()).toHaveLength(1);
    // The person's own navigation, the console's own requests, the printed address opened from anywhere, the header.
    expect((await raw(server.port, '/', { host, cookie, 'sec-fetch-site': 'none' })).status).toBe(200);
    expect((await raw(server.port, '/api/approvals', { host, cookie, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await raw(server.port, `/?token=${server.token}`, { host, cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(200);
    expect((await raw(server.port, '/api/approvals', { host, 'x-toolgate-token': server.token, 'sec-fetch-site': 'cross-site' })).status).toBe(200);
    expect((await raw(server.port, `/api/approvals/${id}`, { host, cookie, origin, 'sec-fetch-site': 'same-origin' }, 'POST', JSON.stringify({ decision: 'reject' }))).status).toBe(200);
    expect((await pending).ok).toBe(false);
  });

  it('answers a receipt id that is no percent-encoding with a typed not-found, never an internal error', async () => {
    const { server } = await setup();
    const response = await raw(server.port, '/api/receipts/%E0%A4%', { host: `127.0.0.1:${server.port}`, 'x-toolgate-token': server.token });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ error: 'no such receipt' });
  });

  it('answers the favicon without the token, so a browser sees no refusal, but only to a loopback Host', async () => {
    const { server } = await setup();
    const favicon = await raw(server.port, '/favicon.ico', { host: `127.0.0.1:${server.port}` });
    expect(favicon.status).toBe(200);
    expect(favicon.headers['content-type']).toBe('image/svg+xml');
    expect(favicon.body).toMatch(/^<svg [^]*<\/svg>$/);
    expect(favicon.headers['set-cookie']).toBeUndefined();
    expect((await raw(server.port, '/favicon.ico', { host: `evil.example:${server.port}` })).status).toBe(421);
  });

  it('refuses a foreign Host header (DNS rebinding) even with the token', async () => {
    const { server } = await setup();
    const response = await raw(server.port, '/api/approvals', { host: `evil.example:${server.port}`, 'x-toolgate-token': server.token });
    expect(response.status).toBe(421);
  });

  it('refuses a request with two Host headers, whichever comes first: one reader may take the first and another the last', async () => {
    const { server } = await setup();
    const own = `127.0.0.1:${server.port}`;
    for (const hosts of [[own, 'rebound.example'], ['rebound.example', own], [own, own]]) {
      const head = await new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () => socket.end(`GET /api/approvals HTTP/1.1\r\n${hosts.map((host) => `Host: ${host}\r\n`).join('')}x-toolgate-token: ${server.token}\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('end', () => resolve(text.split('\r\n')[0] ?? ''));
        socket.on('error', reject);
      });
      expect({ hosts, head }).toEqual({ hosts, head: 'HTTP/1.1 421 Misdirected Request' });
    }
  });

  it('refuses a cross-origin decision', async () => {
    const { server } = await setup();
    const response = await raw(
      server.port,
      '/api/approvals/ap_x',
      { host: `127.0.0.1:${server.port}`, 'x-toolgate-token': server.token, origin: 'http://evil.example', 'content-type': 'application/json' },
      'POST',
      JSON.stringify({ decision: 'once' }),
    );
    expect(response.status).toBe(403);
  });

  it('holds a governed call until it is approved over the API, then lists its receipt', async () => {
    const { host, registry, approvals, server } = await setup();
    const pending = registry.dispatch(
      { callId: 'c1', name: 'write_note', arguments: { path: 'notes/a.md', content: 'hello' } },
      { grantedTools: ['write_note'], approval: { confirm: approvals.confirm } },
    );
    await expect.poll(() => approvals.pending().length).toBe(1);
    expect(host.calls).toHaveLength(0);
    const headers = { host: `127.0.0.1:${server.port}`, 'x-toolgate-token': server.token, 'content-type': 'application/json' };
    const listed = JSON.parse((await raw(server.port, '/api/approvals', headers)).body) as { id: string; preview: { path: string } }[];
    expect(listed[0]?.preview.path).toBe('notes/a.md');
    const decided = await raw(server.port, `/api/approvals/${listed[0]?.id ?? ''}`, headers, 'POST', JSON.stringify({ decision: 'once' }));
    expect(decided.status).toBe(200);
    const outcome = await pending;
    expect(outcome.ok).toBe(true);
    expect(host.files.get('notes/a.md')).toBe('hello');
    const receipts = JSON.parse((await raw(server.port, '/api/receipts?tool=write_note', headers)).body) as { status: string; approval: { outcome: string } }[];
    expect(receipts[0]?.status).toBe('ok');
    expect(receipts[0]?.approval.outcome).toBe('approve');
  });

  it('rejects with a reason and rejects unknown decisions', async () => {
    const { registry, approvals, server } = await setup();
    const pending = registry.dispatch(
      { callId: 'c2', name: 'write_note', arguments: { path: 'x', content: 'y' } },
      { grantedTools: ['write_note'], approval: { confirm: approvals.confirm } },
    );
    await expect.poll(() => approvals.pending().length).toBe(1);
    const id = approvals.pending()[0]?.id ?? '';
    const headers = { host: `127.0.0.1:${server.port}`, 'x-toolgate-token': server.token, 'content-type': 'application/json' };
    expect((await raw(server.port, `/api/approvals/${id}`, headers, 'POST', JSON.stringify({ decision: 'maybe' }))).status).toBe(400);
    await raw(server.port, `/api/approvals/${id}`, headers, 'POST', JSON.stringify({ decision: 'reject', reason: 'not today' }));
    const outcome = await pending;
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error.code).toBe('DENIED_BY_USER');
    expect(!outcome.ok && outcome.error.message).toContain('not today');
  });

  it('lists a withdrawn approval as closed, and deciding it is not found; the call was never run', async () => {
    const { host, registry, approvals, server } = await setup();
    const controller = new AbortController();
    const pending = registry.dispatch(
      { callId: 'c3', name: 'write_note', arguments: { path: 'x', content: 'y' } },
      { grantedTools: ['write_note'], approval: { confirm: approvals.confirm }, signal: controller.signal },
    );
    await expect.poll(() => approvals.pending().length).toBe(1);
    const id = approvals.pending()[0]?.id ?? '';
    controller.abort();
    expect((await pending).ok).toBe(false);
    const headers = { host: `127.0.0.1:${server.port}`, 'x-toolgate-token': server.token, 'content-type': 'application/json' };
    expect(JSON.parse((await raw(server.port, '/api/approvals/closed', headers)).body)).toEqual([expect.objectContaining({ id, callId: 'c3', toolName: 'write_note', outcome: 'withdrawn' })]);
    expect((await raw(server.port, `/api/approvals/${id}`, headers, 'POST', JSON.stringify({ decision: 'once' }))).status).toBe(404);
    expect(host.calls).toHaveLength(0);
  });

  it('approves a withheld definition only with the digest of what was reviewed', async () => {
    const approved: string[] = [];
    const registry = createToolRegistry({ tools: [], policy: allowAll });
    server = await startConsole({
      registry,
      approvals: createApprovalQueue(),
      withheld: { list: () => Promise.resolve([]), approve: (name, digest) => Promise.resolve(void approved.push(`${name}@${digest}`)) },
    });
    const headers = { host: `127.0.0.1:${server.port}`, 'x-toolgate-token': server.token, 'content-type': 'application/json' };
    const approve = (body: string) => raw(server?.port ?? 0, '/api/withheld/mcp_files_read/approve', headers, 'POST', body);
    expect((await approve('{}')).status).toBe(400);
    expect((await approve(JSON.stringify({ digest: 'not-a-digest' }))).status).toBe(400);
    expect((await approve(JSON.stringify({ digest: 'A'.repeat(64) }))).status).toBe(400);
    expect(approved).toEqual([]);
    expect((await approve(JSON.stringify({ digest: 'a'.repeat(64) }))).status).toBe(200);
    expect(approved).toEqual([`mcp_files_read@${'a'.repeat(64)}`]);
  });

  it('withdraws a pending approval when the call is cancelled', async () => {
    const { registry, approvals } = await setup();
    const controller = new AbortController();
    const pending = registry.dispatch(
      { callId: 'c3', name: 'write_note', arguments: { path: 'x', content: 'y' } },
      { grantedTools: ['write_note'], approval: { confirm: approvals.confirm }, signal: controller.signal },
    );
    await expect.poll(() => approvals.pending().length).toBe(1);
    controller.abort();
    const outcome = await pending;
    expect(!outcome.ok && outcome.error.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(approvals.pending()).toHaveLength(0);
  });
});
