import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page, Response } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useChromium } from './support/chromium.js';
import { useHostileSite } from './support/hostile-site.js';
import { decide, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

/*
 * A browser treats every port of 127.0.0.1 as one site, so the console's
 * SameSite=Strict cookie rides on every request a page on another loopback
 * port makes to it: a window it opens, an image, a script tag, a no-cors
 * fetch. The POST refusals are covered in attack-console-card.test.ts; here
 * the page opens the console in a window it keeps a handle on (to raise it
 * under the operator's pointer at the moment of a click, or navigate it) and
 * asks the API for what it holds by the side doors that need no CORS.
 */

const opened = closeAfterEach();

/** A page on another loopback port: a click opens the console in a window it keeps; the API is asked for by no-cors fetches (images and script tags the browser's own blocking already empties). */
function hostilePage(consoleOrigin: string): string {
  return `<!doctype html><body>
<button id="open" onclick="window.opened = window.open('${consoleOrigin}/', 'console')">open</button>
<script>
fetch(${JSON.stringify(`${consoleOrigin}/api/approvals`)}, { mode: 'no-cors', credentials: 'include' })
  .then(() => fetch(${JSON.stringify(`${consoleOrigin}/api/policy`)}, { mode: 'no-cors', credentials: 'include' }))
  .finally(() => { document.title = 'loaded'; });
</script></body>`;
}

/** Whether `page` made the request `response` answers; a window's first navigation has no frame yet, and is another page's. */
function fromPage(response: Response, page: Page): boolean {
  try {
    return response.frame().page() === page;
  } catch {
    return false;
  }
}

describe('attack, in the browser: a page on another loopback port rides the console cookie on requests that need no CORS', () => {
  const site = useHostileSite();

  it('gets no console window and no API answer: every request of another site is refused, though it carries the cookie', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }, { files: { 'notes.md': 'first\n' } }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'pwned\n' } }).catch((error: unknown) => ({ isError: true, error }));
    const card = await pendingApproval(gateway, 'write_file');
    const consoleOrigin = (gateway.consoleUrl as URL).origin;
    const hostileUrl = await site.serve(() => hostilePage(consoleOrigin));

    // The operator has the console open in this browser: its cookie is set, and its own requests still work.
    const context = await site.browser().newContext();
    const operator = await context.newPage();
    await operator.goto(String(gateway.consoleUrl));
    await operator.getByRole('button', { name: /Approvals/ }).click();
    await operator.locator('[data-approval]').waitFor({ timeout: 20_000 });

    const answered: string[] = [];
    context.on('response', (response) => {
      if (response.url().startsWith(consoleOrigin) && !response.url().endsWith('/favicon.ico') && !fromPage(response, operator)) answered.push(`${new URL(response.url()).pathname} ${response.status()}`);
    });
    const attacker = await context.newPage();
    await attacker.goto(hostileUrl);
    await expect.poll(() => attacker.title(), { timeout: 20_000 }).toBe('loaded');
    const [popup] = await Promise.all([attacker.waitForEvent('popup'), attacker.click('#open')]);
    await popup.waitForLoadState();

    // The window the attacker holds shows no console: no cards, no navigation.
    expect(await popup.locator('nav').count()).toBe(0);
    expect(await popup.locator('[data-approval]').count()).toBe(0);
    // Each request reached the console with its cookie (one without it is a 401) and was refused as coming from another site.
    await expect.poll(() => [...answered].sort(), { timeout: 10_000 }).toEqual(['/ 403', '/api/approvals 403', '/api/policy 403']);
    // The operator's console still answers, after a reload too (the browser's own navigation), and the approval still waits for the operator.
    await operator.reload();
    await operator.getByRole('button', { name: /Approvals/ }).click();
    await operator.locator('[data-approval]').waitFor({ timeout: 20_000 });
    expect(await operator.locator('[data-approval]').count()).toBe(1);
    await decide(gateway, card.id, 'reject');
    expect((await call).isError).toBe(true);
    expect(readFileSync(join(gateway.workspace, 'notes.md'), 'utf8')).toBe('first\n');
    await context.close();
  });
});

/** Markup a model writes into what the audit view shows: the path, the content, and what reading it back returns. */
const PAYLOAD = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><a href="javascript:window.pwned=3">x</a><style>body{display:none}</style>';

describe('attack, in the browser: the audit view renders what a model wrote', () => {
  const browser = useChromium();

  it('shows markup in a receipt\'s target, arguments and output as text: nothing runs, nothing is styled, nothing links', async () => {
    const path = '<img src=x onerror=window.pwned=4>.md';
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'accept-edits' }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    expect((await mcp.callTool({ name: 'write_file', arguments: { path, content: PAYLOAD } })).isError).toBeFalsy();
    expect((await mcp.callTool({ name: 'read_file', arguments: { path } })).isError).toBeFalsy();

    const page = await browser().newPage();
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (directive: string) => violations.push(directive));
    await page.addInitScript("document.addEventListener('securitypolicyviolation', (event) => void window.reportViolation(event.violatedDirective))");
    await page.goto(String(gateway.consoleUrl));
    await page.getByRole('button', { name: 'Receipts' }).click();
    await expect.poll(() => page.locator('#receipts tr').count(), { timeout: 20_000 }).toBe(2);
    expect(await page.locator('#receipts td.target').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining(path)]));
    // Each receipt's detail: the read's names the path, the write's arguments carry the markup whole, as text.
    for (const [tool, shown] of [['read_file', 'read_file'], ['write_file', 'javascript:window.pwned=3'], ['write_file', '<script>window.pwned=2</script>']] as const) {
      await page.locator('#receipts tr', { hasText: tool }).click();
      await expect.poll(() => page.locator('#receipt-detail').textContent()).toContain(shown);
      expect(await page.locator('#receipt-detail').textContent()).toContain('<img src=x onerror=window.pwned=4>');
    }
    // Markup stays text: no element came from it, no script ran, nothing was hidden, no link can be followed.
    expect(await page.locator('#receipts img, #receipts script, #receipts a, #receipts style, #receipt-detail img, #receipt-detail script, #receipt-detail a, #receipt-detail style').count()).toBe(0);
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
    expect(await page.locator('body').isVisible()).toBe(true);
    expect(violations).toEqual([]);
    await page.close();
  });
});

describe('attack: the console cookie and token of an earlier start', () => {
  it('are refused once the gateway restarts on the same console port; the new start\'s address works', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const first = opened.gateway(await serveGateway({ console: { port } }));
    const oldToken = (first.consoleUrl as URL).searchParams.get('token') ?? '';
    const page = await fetch(String(first.consoleUrl));
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toBe(`toolgate_console_${port}=${oldToken}`);
    expect((await fetch(new URL('/api/approvals', first.consoleUrl), { headers: { cookie, 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    await first.cli.stop();

    const second = opened.gateway(await serveGateway({ console: { port } }));
    expect((second.consoleUrl as URL).port).toBe(String(port));
    expect((second.consoleUrl as URL).searchParams.get('token')).not.toBe(oldToken);
    const api = new URL('/api/approvals', second.consoleUrl);
    expect((await fetch(api, { headers: { cookie, 'sec-fetch-site': 'same-origin' } })).status).toBe(401);
    expect((await fetch(api, { headers: { 'x-toolgate-token': oldToken } })).status).toBe(401);
    expect((await fetch(new URL(`/?token=${oldToken}`, second.consoleUrl))).status).toBe(401);
    expect((await second.api('/api/approvals')).status).toBe(200);
  });
});
