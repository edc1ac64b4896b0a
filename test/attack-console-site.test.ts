import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
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
  let browser: Browser | undefined;
  let hostile: Server | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (hostile === undefined ? resolve(undefined) : hostile.close(resolve)));
  });

  it('gets no console window and no API answer: every request of another site is refused, though it carries the cookie', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }, { files: { 'notes.md': 'first\n' } }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'pwned\n' } }).catch((error: unknown) => ({ isError: true, error }));
    const card = await pendingApproval(gateway, 'write_file');
    const consoleOrigin = (gateway.consoleUrl as URL).origin;
    hostile = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(hostilePage(consoleOrigin)));
    await new Promise<void>((resolve) => (hostile as Server).listen(0, '127.0.0.1', resolve));

    // The operator has the console open in this browser: its cookie is set, and its own requests still work.
    const context = await (browser as Browser).newContext();
    const operator = await context.newPage();
    await operator.goto(String(gateway.consoleUrl));
    await operator.getByRole('button', { name: /Approvals/ }).click();
    await operator.locator('[data-approval]').waitFor({ timeout: 20_000 });

    const answered: string[] = [];
    context.on('response', (response) => {
      if (response.url().startsWith(consoleOrigin) && !response.url().endsWith('/favicon.ico') && !fromPage(response, operator)) answered.push(`${new URL(response.url()).pathname} ${response.status()}`);
    });
    const attacker = await context.newPage();
    await attacker.goto(`http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`);
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
