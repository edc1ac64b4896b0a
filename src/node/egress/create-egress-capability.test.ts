import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolgateError, ToolPolicyError, ToolUnavailableError, type EgressRequest } from '../../core/internal.js';
import { createNodeHost } from '../create-node-host.js';
import type { EgressOptions, NodeHost, ResolvedAddress } from '../node-host-types.js';
import { startEgressTestServer, TEST_CERT, type EgressTestServer } from './__fixtures__/egress-test-server.js';

const PUBLIC: readonly ResolvedAddress[] = [{ address: '93.184.216.34', family: 4 }];
let base: string;
let fake: EgressTestServer;
const hosts: NodeHost[] = [];

function makeHost(answers: Parameters<EgressTestServer['lookup']>[0], egress: Partial<EgressOptions> = {}): NodeHost {
  const host = createNodeHost({
    workspace: base,
    spillDir: path.join(base, `spill-${hosts.length}`),
    sandbox: 'off',
    secrets: { 'search-key': 'sk-live-123', 'bad-key': 'line\r\nInjected: 1' },
    egress: { lookup: fake.lookup(answers), connect: fake.connect, trustedCa: TEST_CERT, ...egress },
  });
  hosts.push(host);
  return host;
}

async function refusal(host: NodeHost, request: EgressRequest): Promise<ToolPolicyError> {
  const error = await host.egress.fetch(request).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolPolicyError);
  return error as ToolPolicyError;
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-egress-'));
  fake = await startEgressTestServer();
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await fake.close();
  await rm(base, { recursive: true, force: true });
});

describe('egress: connecting', () => {
  it('dials the validated address with SNI and Host set to the hostname', async () => {
    const host = makeHost({ 'api.example.test': PUBLIC });
    fake.dialled.length = 0;
    const response = await host.egress.fetch({ method: 'GET', url: 'https://api.example.test/echo?q=1' });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ host: 'api.example.test', path: '/echo?q=1', method: 'GET' });
    expect(fake.dialled).toEqual([{ address: '93.184.216.34', port: 443, servername: 'api.example.test' }]);
  });

  it('verifies the certificate against the hostname (no trust for an unknown CA)', async () => {
    const untrusting = makeHost({ 'api.example.test': PUBLIC }, { trustedCa: [] });
    const error = await untrusting.egress.fetch({ method: 'GET', url: 'https://api.example.test/echo' }).catch((caught: unknown) => caught);
    expect(ToolgateError.isInstance(error)).toBe(false);
    expect(String((error as Error).message)).toMatch(/certificate/i);
  });

  it.each([
    ['decimal', 'https://2130706433/'],
    ['octal', 'https://0177.0.0.1/'],
    ['hex', 'https://0x7f.0.0.1/'],
    ['dotless short', 'https://127.1/'],
    ['zero', 'https://0/'],
    ['metadata', 'https://169.254.169.254/latest/meta-data/'],
    ['IPv4-mapped', 'https://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped hex', 'https://[::ffff:7f00:1]/'],
    ['IPv4-compatible', 'https://[::127.0.0.1]/'],
    ['IPv4-compatible public', 'https://[::8.8.8.8]/'],
    ['NAT64 metadata', 'https://[64:ff9b::a9fe:a9fe]/'],
    ['6to4 loopback', 'https://[2002:7f00:1::]/'],
    ['Teredo', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['AWS IPv6 metadata', 'https://[fd00:ec2::254]/'],
  ])('refuses an IP literal in %s form without dialling', async (_form, url) => {
    const host = makeHost({});
    fake.dialled.length = 0;
    expect((await refusal(host, { method: 'GET', url })).reason).toBe('address_not_public');
    expect(fake.dialled).toEqual([]);
  });

  it('accepts a public IP literal, checking the certificate by IP', async () => {
    const host = makeHost({});
    fake.dialled.length = 0;
    const response = await host.egress.fetch({ method: 'GET', url: 'https://8.8.8.8/echo' });
    expect(response.status).toBe(200);
    expect(fake.dialled[0]?.address).toBe('8.8.8.8');
  });

  it('refuses when ANY DNS answer is non-public, and names no address', async () => {
    const host = makeHost({
      'mixed.example.test': [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
      'mapped.example.test': [{ address: '::ffff:169.254.169.254', family: 6 }],
      'nat64.example.test': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
    });
    for (const name of ['mixed', 'mapped', 'nat64']) {
      const error = await refusal(host, { method: 'GET', url: `https://${name}.example.test/echo` });
      expect(error.reason).toBe('address_not_public');
      expect(error.message).not.toMatch(/10\.0\.0\.7|169\.254|example\.test/);
    }
  });

  it('cannot be rebound: the second lookup answering loopback is refused', async () => {
    let lookups = 0;
    const host = makeHost({ 'rebind.example.test': () => (lookups++ === 0 ? PUBLIC : [{ address: '127.0.0.1', family: 4 }]) });
    expect((await host.egress.fetch({ method: 'GET', url: 'https://rebind.example.test/echo' })).status).toBe(200);
    expect((await refusal(host, { method: 'GET', url: 'https://rebind.example.test/echo' })).reason).toBe('address_not_public');
    expect(lookups).toBe(2);
  });

  it('refuses http, userinfo and malformed URLs before any lookup', async () => {
    const host = makeHost({ 'api.example.test': PUBLIC });
    for (const url of ['http://api.example.test/echo', 'https://user:pw@api.example.test/echo', 'https://user@api.example.test/', 'ftp://api.example.test/', 'not a url']) {
      expect((await refusal(host, { method: 'GET', url })).reason, url).toBe('insecure_url');
    }
  });
});

describe('egress: checking a destination another program fetches', () => {
  it('refuses a non-public literal or answer, and a name that does not resolve here, without dialling, and accepts a public one', async () => {
    const host = makeHost({ 'api.example.test': PUBLIC, 'mixed.example.test': [...PUBLIC, { address: '127.0.0.1', family: 4 }] });
    fake.dialled.length = 0;
    const check = (url: string): Promise<unknown> => host.egress.checkDestination(url, 'mcp_web_fetch').then(() => undefined, (caught: unknown) => caught);
    for (const url of ['https://127.1:8443/admin', 'https://[::ffff:7f00:1]/', 'https://[64:ff9b::a9fe:a9fe]/', 'https://mixed.example.test/']) {
      const error = await check(url);
      expect(error, url).toBeInstanceOf(ToolPolicyError);
      expect((error as ToolPolicyError).reason, url).toBe('address_not_public');
      expect((error as ToolPolicyError).message, url).not.toMatch(/127|169\.254|example\.test/);
    }
    expect(await check('https://api.example.test/page')).toBeUndefined();
    expect(await check('https://8.8.8.8/')).toBeUndefined();
    // The program resolves the name again with its own resolver, which may lead anywhere.
    const unresolved = await check('https://missing.example.test/');
    expect(unresolved).toBeInstanceOf(ToolUnavailableError);
    expect((unresolved as ToolUnavailableError).message).not.toContain('missing.example.test');
    expect(((await check('http://api.example.test/')) as ToolPolicyError).reason).toBe('insecure_url');
    expect(fake.dialled).toEqual([]);
  });
});

describe('egress: redirects', () => {
  const answers = {
    'api.example.test': PUBLIC,
    'other.example.test': PUBLIC,
    'internal.example.test': [{ address: '10.0.0.5', family: 4 as const }],
  };

  it('follows same-host redirects (at most 5) and reports the final URL', async () => {
    const host = makeHost(answers);
    const response = await host.egress.fetch({ method: 'GET', url: 'https://api.example.test/hops?n=3' });
    expect(response.url).toBe('https://api.example.test/echo');
    expect((await refusal(host, { method: 'GET', url: 'https://api.example.test/hops?n=5' })).reason).toBe('too_many_redirects');
  });

  it('never follows https → http, userinfo, or a host off the allowlist', async () => {
    const host = makeHost(answers);
    for (const to of ['http://api.example.test/echo', 'https://user:pw@api.example.test/echo', 'https://other.example.test/echo', 'https://internal.example.test/echo']) {
      const error = await refusal(host, { method: 'GET', url: `https://api.example.test/redirect?to=${encodeURIComponent(to)}` });
      expect(error.reason, to).toBe('redirect_refused');
    }
  });

  it('re-checks the addresses of an allowed redirect target', async () => {
    const host = makeHost(answers, { allowedDomains: ['internal.example.test', 'other.example.test'] });
    const error = await refusal(host, { method: 'GET', url: `https://api.example.test/redirect?to=${encodeURIComponent('https://internal.example.test/echo')}` });
    expect(error.reason).toBe('address_not_public');
  });

  it('turns a 303 into a GET without the body, and consults the engine hook when given', async () => {
    const seen: string[] = [];
    const host = makeHost(answers, { allowRedirect: (url) => (seen.push(url.hostname), url.hostname === 'other.example.test') });
    const response = await host.egress.fetch({ method: 'POST', body: 'payload', url: `https://api.example.test/redirect?code=303&to=${encodeURIComponent('https://other.example.test/echo')}` });
    expect(JSON.parse(response.body)).toMatchObject({ method: 'GET', body: '', host: 'other.example.test' });
    expect(seen).toEqual(['other.example.test']);
  });
});

describe('egress: credentials and limits', () => {
  const answers = { 'api.example.test': PUBLIC, 'other.example.test': PUBLIC };

  it('resolves a credentialRef inside the host and drops it on a cross-origin redirect', async () => {
    const host = makeHost(answers, { allowedDomains: ['other.example.test'] });
    const direct = await host.egress.fetch({ method: 'GET', url: 'https://api.example.test/echo', credentialRef: 'search-key' });
    expect(JSON.parse(direct.body)).toMatchObject({ authorization: 'Bearer sk-live-123' });
    const raw = await host.egress.fetch({ method: 'GET', url: 'https://api.example.test/echo', credentialRef: 'search-key', credentialHeader: 'X-Subscription-Token' });
    expect(JSON.parse(raw.body)).toMatchObject({ subscription: 'sk-live-123', authorization: null });
    const redirected = await host.egress.fetch({ method: 'GET', credentialRef: 'search-key', url: `https://api.example.test/redirect?to=${encodeURIComponent('https://other.example.test/echo')}` });
    expect(JSON.parse(redirected.body)).toMatchObject({ host: 'other.example.test', authorization: null });
  });

  it("drops the caller's own Authorization and Cookie on a redirect to another origin, as browsers do, and keeps them on the same origin", async () => {
    const host = makeHost(answers, { allowedDomains: ['other.example.test'] });
    const headers = { Authorization: 'Bearer caller-token', Cookie: 'session=caller-session', 'X-Trace': 'kept' };
    const same = await host.egress.fetch({ method: 'GET', headers, url: `https://api.example.test/redirect?to=${encodeURIComponent('/echo')}` });
    expect(JSON.parse(same.body)).toMatchObject({ authorization: 'Bearer caller-token', cookie: 'session=caller-session' });
    for (const to of ['https://other.example.test/echo', `https://api.example.test:${fake.port}/echo`]) {
      const redirected = await host.egress.fetch({ method: 'GET', headers, url: `https://api.example.test/redirect?to=${encodeURIComponent(to)}` });
      expect(JSON.parse(redirected.body), to).toMatchObject({ authorization: null, cookie: null });
    }
  });

  it('refuses an unknown credential, a header-injecting secret and forbidden headers', async () => {
    const host = makeHost(answers);
    expect((await refusal(host, { method: 'GET', url: 'https://api.example.test/echo', credentialRef: 'missing' })).reason).toBe('credential_unknown');
    const injected = await refusal(host, { method: 'GET', url: 'https://api.example.test/echo', credentialRef: 'bad-key' });
    expect(injected.reason).toBe('credential_unknown');
    expect(injected.message).not.toContain('Injected');
    const overrides = [{ 'X-HTTP-Method-Override': 'DELETE' }, { 'X-HTTP-Method': 'DELETE' }, { 'x-method-override': 'PUT' }];
    for (const headers of [{ Host: 'evil.test' }, { 'Proxy-Authorization': 'x' }, { 'x-ok': 'a\r\nb: c' }, { 'bad header': 'x' }, ...overrides]) {
      expect((await refusal(host, { method: 'GET', url: 'https://api.example.test/echo', headers })).reason).toBe('header_not_allowed');
    }
  });

  // The method, path and host judged are the ones performed: a server or proxy that honours an override header would
  // turn an approved GET into a DELETE, or serve another path or host than the one the policy and the approver saw.
  it('refuses headers that override the method, the path or the host a server acts on', async () => {
    const host = makeHost(answers);
    const overrides = ['X-HTTP-Method-Override', 'X-HTTP-Method', 'X-Method-Override', 'X-Original-URL', 'X-Rewrite-URL', 'X-Forwarded-Host', 'X-Host', 'Forwarded'];
    for (const name of overrides) {
      const error = await refusal(host, { method: 'GET', url: 'https://api.example.test/echo', headers: { [name]: name.includes('Method') ? 'DELETE' : '/admin' } });
      expect(error.reason, name).toBe('header_not_allowed');
    }
  });

  it('caps the response and the request body', async () => {
    const host = makeHost(answers, { maxBytes: 1000, maxRequestBytes: 10 });
    const response = await host.egress.fetch({ method: 'GET', url: 'https://api.example.test/big' });
    expect(response).toMatchObject({ truncated: true });
    expect(response.body.length).toBe(1000);
    expect((await refusal(host, { method: 'POST', url: 'https://api.example.test/echo', body: 'x'.repeat(11) })).reason).toBe('too_large');
  });

  it('times out a hanging server, and a caller abort stays a cancellation', async () => {
    const host = makeHost(answers, { timeoutMs: 200 });
    const timeout = await host.egress.fetch({ method: 'GET', url: 'https://api.example.test/hang' }).catch((caught: unknown) => caught);
    expect((timeout as ToolgateError).code).toBe('TOOL_TIMEOUT');
    const controller = new AbortController();
    const pending = makeHost(answers).egress.fetch({ method: 'GET', url: 'https://api.example.test/hang' }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('stores a binary body as media, never inline', async () => {
    const host = makeHost(answers);
    const response = await host.egress.fetch({ method: 'GET', url: 'https://api.example.test/png' });
    expect(response.body).toBe('');
    expect(response.media).toMatchObject({ mediaType: 'image/png', bytes: 12 });
    expect(await host.mediaStore.get(response.media?.handle ?? '')).toBeDefined();
  });

  it('registers the whole operation with retainWork when the runner supplies it', async () => {
    const host = makeHost(answers);
    let retained = 0;
    const response = await host.egress.fetch({ method: 'GET', url: 'https://api.example.test/echo' }, undefined, {
      retainWork: (factory) => {
        retained += 1;
        return factory();
      },
    });
    expect(response.status).toBe(200);
    expect(retained).toBe(1);
  });
});
