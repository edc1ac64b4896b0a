import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { gatewayAuth, startCli, type RunningCli } from './support/spawn-cli.js';

const shots = join('test-results', 'cli-serve');

describe('toolgate serve: an MCP client, the console and a person approving in Chromium', () => {
  let browser: Browser | undefined;
  let cli: RunningCli | undefined;
  let workspace: string;

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    workspace = mkdtempSync(join(tmpdir(), 'toolgate-serve-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'ask', agent: 'e2e-agent' }));
    writeFileSync(join(workspace, 'notes.md'), 'first line\n');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await cli?.stop();
    await browser?.close();
  });

  it('holds a governed call until it is approved with a click, then the client gets the result and the receipt appears', async () => {
    cli = startCli(['--json', 'serve', '--http', '0'], workspace);
    const started = await cli.ready;
    const consoleUrl = String(started.console);
    const mcpUrl = String(started.mcp);
    expect(consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);

    const page = await (browser as Browser).newPage();
    const responses: { url: string; status: number }[] = [];
    page.on('response', (response) => responses.push({ url: response.url(), status: response.status() }));
    await page.goto(consoleUrl);
    await page.getByText('No calls yet').waitFor();
    // The token was in the address only to load the page: it is gone from the address bar, and no script can read the cookie that carries it now.
    const token = new URL(consoleUrl).searchParams.get('token') ?? '';
    await expect.poll(() => page.url()).toBe(consoleUrl.replace(/\?token=.*$/, ''));
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.context().cookies()).toMatchObject([{ name: `toolgate_console_${new URL(consoleUrl).port}`, value: token, httpOnly: true, sameSite: 'Strict', path: '/' }]);

    // 1. An MCP client calls a governed tool.
    const client = new Client({ name: 'e2e-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), gatewayAuth(started)));
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toContain('write_file');
    const call = client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'first line\nsecond line\n' } });

    // 2. The page shows the pending approval, with its secret-free preview.
    await page.getByRole('button', { name: /Approvals/ }).click();
    const card = page.locator('[data-approval]');
    await card.waitFor({ timeout: 15_000 });
    await expect.poll(() => card.textContent()).toContain('notes.md');
    // For a write, the approver sees the diff against the file as it is.
    await expect.poll(() => card.locator('.diff-add').allTextContents()).toContain('+second line\n');
    expect(await card.locator('.diff-hunk').count()).toBe(1);
    expect(await card.locator('.diff-del').count()).toBe(0);
    await page.screenshot({ path: join(shots, '1-pending-approval.png'), fullPage: true });
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('first line\n');

    // A reload, from the address without the token, still shows the approval: the cookie carries the page, the API and the stream.
    await page.reload();
    expect(page.url()).not.toContain(token);
    await page.getByRole('button', { name: /Approvals/ }).click();
    await expect.poll(() => card.textContent(), { timeout: 15_000 }).toContain('notes.md');

    // 3. A click approves it.
    await card.getByRole('button', { name: 'Approve once' }).click();

    // 4. The client receives the result.
    const result = await call;
    expect(result.isError).not.toBe(true);
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('first line\nsecond line\n');
    await page.getByRole('button', { name: 'Live calls' }).click();
    await expect.poll(() => page.locator('#calls .status').first().textContent()).toBe('ok');
    await page.screenshot({ path: join(shots, '2-live-calls.png'), fullPage: true });

    // 5. The receipt appears, with its chain position.
    await page.getByRole('button', { name: 'Receipts' }).click();
    const row = page.locator('#receipts tr', { hasText: 'write_file' }).first();
    await row.waitFor();
    await row.click();
    const detail = page.locator('#receipt-detail');
    await expect.poll(() => detail.textContent()).toContain('approve via confirm:console');
    await expect.poll(() => detail.textContent()).toMatch(/chain position#\d+ [0-9a-f]{64}/);
    await expect.poll(() => page.locator('#chain').textContent()).toMatch(/chain verified · [1-9]\d* rows/);
    // The decision trace knows the tool writes: it is explained with the tool's own policy class.
    await expect.poll(() => detail.textContent()).not.toContain('read-only tools allow');
    await page.screenshot({ path: join(shots, '3-receipt.png'), fullPage: true });

    // The policy in force is on its own view.
    await page.getByRole('button', { name: 'Policy' }).click();
    await expect.poll(() => page.locator('#policy').textContent()).toContain('"mode": "ask"');
    await expect.poll(() => page.locator('#policy').textContent()).toContain('"scope": "workspace-write"');
    await page.screenshot({ path: join(shots, '4-policy.png'), fullPage: true });
    // No request of the page was refused; none carried the token in its URL but the first.
    expect(responses.filter((response) => response.status === 401 || response.status === 403)).toEqual([]);
    expect(responses.filter((response) => response.url.includes(token)).map((response) => response.url)).toEqual([consoleUrl]);
    // The favicon the browser asks for on its own (outside what the page reports) is answered without the token; the page is not, without the cookie.
    const stranger = await (browser as Browser).newContext();
    const bare = await stranger.newPage();
    expect((await bare.goto(new URL('/favicon.ico', consoleUrl).href))?.status()).toBe(200);
    expect((await bare.goto(new URL('/', consoleUrl).href))?.status()).toBe(401);
    await stranger.close();
    await client.close();
    await page.close();
  });

  it('shows an approval whose client went away as withdrawn, and one nobody decided as expired; neither writes', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'toolgate-serve-closed-'));
    writeFileSync(join(elsewhere, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'ask', approvals: { timeoutSeconds: 5 } }));
    writeFileSync(join(elsewhere, 'notes.md'), 'first line\n');
    const gateway = startCli(['--json', 'serve', '--http', '0'], elsewhere);
    try {
      const started = await gateway.ready;
      const page = await (browser as Browser).newPage();
      await page.goto(String(started.console));
      await page.getByRole('button', { name: /Approvals/ }).click();
      const write = { name: 'write_file', arguments: { path: 'notes.md', content: 'overwritten\n' } };

      // A client calls, its card appears, and the client goes away before anyone decides.
      const leaving = new Client({ name: 'leaving-client', version: '1.0.0' });
      await leaving.connect(new StreamableHTTPClientTransport(new URL(String(started.mcp)), gatewayAuth(started)));
      void leaving.callTool(write).catch(() => undefined);
      const card = page.locator('[data-approval]');
      await card.waitFor({ timeout: 15_000 });
      await leaving.close();
      await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(0);
      await page.getByRole('button', { name: 'Live calls' }).click();
      const closed = page.locator('#approvals-closed li');
      await expect.poll(() => closed.first().textContent(), { timeout: 10_000 }).toContain('approval withdrawn');
      expect(await closed.first().getAttribute('class')).toBe('withdrawn');

      // Another call waits, and nobody decides.
      const waiting = new Client({ name: 'waiting-client', version: '1.0.0' });
      await waiting.connect(new StreamableHTTPClientTransport(new URL(String(started.mcp)), gatewayAuth(started)));
      const result = await waiting.callTool(write);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('expired');
      await expect.poll(() => closed.first().textContent(), { timeout: 10_000 }).toContain('approval expired');
      expect(await closed.count()).toBe(2);
      await page.screenshot({ path: join(shots, '5-closed-approvals.png'), fullPage: true });
      expect(readFileSync(join(elsewhere, 'notes.md'), 'utf8')).toBe('first line\n');
      await waiting.close();
      await page.close();
    } finally {
      await gateway.stop();
    }
  });
});
