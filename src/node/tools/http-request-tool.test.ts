import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry, type EgressRequest, type ToolPolicy } from '../../core/internal.js';
import { createSqliteJournal } from '../../journal/sqlite/index.js';
import { createFakeHost, createScriptedApprover, recordEvents } from '../../testing/index.js';
import { httpRequestTool } from './http-request-tool.js';

/** Credentials with no vendor shape: only where they stand says what they are. */
const credentials = {
  queryKey: 'kq7Rr2XwP9sLm4Zt',
  querySig: 'sv2Jx8Qp4Lm0Nz6Y%2BaB%3D',
  queryAccessToken: 'atk9Fh2Lq8Wm3Zx',
  bearer: 'opaque.bearer.4Yh7Ls2Qp',
  proxy: 'Zm9vOmJhcg8x2Lq',
  rawAuthorization: 'rawAuth5Jq2Lm8Wx',
  cookieSession: 'c00k1eS3ss10nV4l',
  cookieCsrf: 'csrf7Hq2Lm9Wx4',
  apiKey: 'ak5Tq9Lm2Wx7Zp',
  authToken: 'xat8Lm2Qp7Wz4Ty',
  signature: '9f2c4e1a7b3d8f6e0c5a',
  bodyPassword: 'Pa55w0rdValue99',
  bodyToken: 'bt3Kq8Lm2Wx9Zr',
};

const asks: ToolPolicy = { version: 1, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'ask', reason: 'egress', matched: [] }) };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-http-redaction-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('http_request', () => {
  it('keeps the credentials it carries out of the receipt, the events, the approval and the journal, and still sends them', async () => {
    const host = createFakeHost();
    host.script('egress.fetch', { result: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"items":[]}', truncated: false, url: 'https://api.example.test/v1/items' } });
    const journal = createSqliteJournal(join(dir, 'journal.db'), { onUnresolved: () => undefined });
    const registry = createToolRegistry({ tools: [httpRequestTool], host, policy: asks, journal });
    const recording = recordEvents(registry);
    const approver = createScriptedApprover('approve');
    const url = `https://api.example.test/v1/items?page=2&key=${credentials.queryKey}&sig=${credentials.querySig}&access_token=${credentials.queryAccessToken}`;
    const headers = {
      Accept: 'application/json',
      Authorization: `Bearer ${credentials.bearer}`,
      'Proxy-Authorization': credentials.proxy,
      'X-Forwarded-Authorization': credentials.rawAuthorization,
      Cookie: `session=${credentials.cookieSession}; csrftoken=${credentials.cookieCsrf}`,
      'X-Api-Key': credentials.apiKey,
      'X-Auth-Token': credentials.authToken,
      'X-Hub-Signature-256': `sha256=${credentials.signature}`,
    };
    const body = `grant_type=password&username=alice&password=${credentials.bodyPassword}&token=${credentials.bodyToken}`;

    const outcome = await registry.dispatch(
      { callId: 'h1', name: 'http_request', arguments: { url, method: 'POST', headers, body } },
      { grantedTools: ['http_request'], approval: { confirm: approver.confirm } },
    );
    journal.close();
    recording.stop();

    expect(outcome.ok).toBe(true);
    // What runs is the call as made: the host gets every credential.
    expect(host.calls.find((call) => call.method === 'fetch')?.args[0]).toMatchObject({ url, method: 'POST', headers, body } satisfies Partial<EgressRequest>);
    const request = approver.requests[0];
    expect(request).toBeDefined();
    const views = {
      receipt: JSON.stringify(outcome.receipt),
      events: JSON.stringify(recording.events),
      approval: JSON.stringify({ preview: request?.preview, arguments: request?.arguments, view: request?.view }),
      journal: readdirSync(dir)
        .map((file) => readFileSync(join(dir, file)).toString('latin1'))
        .join('\n'),
    };
    for (const [where, text] of Object.entries(views)) {
      for (const [name, secret] of Object.entries(credentials)) expect(text.includes(secret), `${name} in the ${where}`).toBe(false);
    }
    // What was masked is shown as masked, beside what was not.
    expect(outcome.receipt.arguments).toMatchObject({
      url: 'https://api.example.test/v1/items?page=2&key=[redacted]&sig=[redacted]&access_token=[redacted]',
      headers: { Accept: 'application/json', Authorization: 'Bearer [redacted]', Cookie: 'session=[redacted]; csrftoken=[redacted]', 'X-Api-Key': '[redacted]' },
      body: 'grant_type=password&username=alice&password=[redacted]&token=[redacted]',
    });
    expect(views.journal).toContain('access_token=[redacted]');
    expect(recording.of('tool-call-requested')[0]?.toolInput).toEqual(outcome.receipt.arguments);
  });
});
