import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { useChromium } from '../../test/support/chromium.js';
import { buttonCentre, buttonOwnerAt, goneFrom } from '../../test/support/console-pointer.js';
import { createToolRegistry, type ToolOutcome } from '../core/internal.js';
import type { WithheldDefinition } from '../mcp/index.js';
import { createFakeHost } from '../testing/index.js';
import { allowAll, runTests } from './__fixtures__/run-tests-tool.js';
import { WITHHELD_READ } from './__fixtures__/withheld-definitions.js';
import { createApprovalQueue } from './approval-queue.js';
import type { ApprovalQueue, ConsoleServer } from './console-types.js';
import { startConsole } from './create-console-server.js';

// The settle guard in the console page, with real mouse clicks and keys at fixed places: what lies under the pointer is the point.
// The page's clock is paused once it is open (`pauseClock`) and moves only by `clock.runFor`: what a click meets is the
// time the test let pass, not how long a loaded machine took between two steps.

/** Longer than the settle time: a person reading a card before clicking. */
const READ_MS = 1_000;
/** Shorter than the settle time: the second click of a double click, a click aimed a moment before the cards moved. */
const MOMENT_MS = 300;

interface Scene {
  readonly page: Page;
  readonly approvals: ApprovalQueue;
  /** Call run_tests with `command` (the cards of commands of one length have one shape); resolves once its card is drawn. */
  readonly call: (command: string) => Promise<{ id: string; outcome: Promise<ToolOutcome> }>;
}

const browser = useChromium();
let server: ConsoleServer | undefined;
let page: Page | undefined;
afterEach(async () => {
  await page?.close();
  await server?.close();
  page = undefined;
  server = undefined;
});

/** Give the page a clock of its own (before it loads) and, once it is open, stop it: the settle guard's time then passes only with `clock.runFor`. */
async function pauseClock(opened: Page, load: () => Promise<unknown>): Promise<void> {
  await opened.clock.install();
  await load();
  await opened.clock.pauseAt(Date.now() + 1_000);
}

async function openScene(viewport = { width: 1280, height: 900 }): Promise<Scene> {
  const approvals = createApprovalQueue();
  const registry = createToolRegistry({ tools: [runTests], host: createFakeHost(), policy: allowAll });
  server = await startConsole({ registry, approvals });
  const opened = await browser().newPage({ viewport });
  page = opened;
  const url = server.url;
  await pauseClock(opened, async () => {
    await opened.goto(url);
    await opened.getByRole('button', { name: /Approvals/ }).click();
  });
  const call: Scene['call'] = async (command) => {
    const before = new Set(approvals.pending().map((entry) => entry.id));
    const context = { agent: 'model', grantedTools: ['run_tests'], approval: { confirm: approvals.confirm } };
    const outcome = registry.dispatch({ callId: command, name: 'run_tests', arguments: { command } }, context);
    await expect.poll(() => approvals.pending().some((entry) => !before.has(entry.id))).toBe(true);
    const id = approvals.pending().find((entry) => !before.has(entry.id))?.id ?? '';
    await opened.locator(`[data-approval="${id}"]`).waitFor();
    return { id, outcome };
  };
  return { page: opened, approvals, call };
}

const pendingIds = (approvals: ApprovalQueue): string[] => approvals.pending().map((entry) => entry.id);

describe('settle guard, in Chromium', () => {
  it('a card drawn a moment ago does not take a click, and shows it: its buttons are disabled until it stays still, then they answer', async () => {
    const { page, approvals, call } = await openScene();
    const first = await call('npm test --one');
    const buttons = page.locator(`[data-approval="${first.id}"] .actions button`);
    expect(await buttons.evaluateAll((all) => all.map((button) => button.getAttribute('aria-disabled')))).toEqual(['true', 'true', 'true', 'true']);
    const point = await buttonCentre(page, `[data-approval="${first.id}"]`, 'Approve once');
    await page.clock.runFor(MOMENT_MS);
    await page.mouse.click(point.x, point.y);
    await page.waitForTimeout(300);
    expect(pendingIds(approvals)).toEqual([first.id]);
    await page.clock.runFor(READ_MS);
    expect(await buttons.evaluateAll((all) => all.map((button) => button.getAttribute('aria-disabled')))).toEqual(['false', 'false', 'false', 'false']);
    await page.mouse.click(point.x, point.y);
    expect((await first.outcome).ok).toBe(true);
  });

  it('a flood of cards arriving below neither moves nor disarms the card under the pointer: the click decides it, and only it', async () => {
    const { page, approvals, call } = await openScene();
    const first = await call('npm test --one');
    const point = await buttonCentre(page, `[data-approval="${first.id}"]`, 'Approve once');
    await page.clock.runFor(READ_MS);
    const flood: { id: string }[] = [];
    for (let index = 0; index < 20; index += 1) flood.push(await call(`npm test --${String(index).padStart(3, '0')}`));
    await page.clock.runFor(MOMENT_MS);
    expect(await buttonOwnerAt(page, point)).toBe(first.id);
    await page.mouse.click(point.x, point.y);
    expect((await first.outcome).ok).toBe(true);
    expect(pendingIds(approvals)).toEqual(flood.map((entry) => entry.id));
    for (const entry of flood) approvals.decide(entry.id, { outcome: 'reject', reason: 'test over', by: 'test' });
  });

  it('the page scrolled to its end, a card below it closes and the cards above slide down: the one that slid under the pointer does not take the click', async () => {
    const { page, approvals, call } = await openScene({ width: 1280, height: 500 });
    const [first, second, third] = [await call('npm test --one'), await call('npm test --two'), await call('npm test --six')];
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    const point = await buttonCentre(page, `[data-approval="${second.id}"]`, 'Approve once');
    await page.mouse.move(point.x, point.y);
    await page.clock.runFor(READ_MS);
    approvals.decide(third.id, { outcome: 'reject', reason: 'answered in another tab', by: 'test' });
    await goneFrom(page, `[data-approval="${third.id}"]`);
    // The page is shorter now, so its scroll position is: everything drawn moves down, and the first card's button is under the pointer.
    expect(await buttonOwnerAt(page, point)).toBe(first.id);
    await page.clock.runFor(MOMENT_MS);
    await page.mouse.click(point.x, point.y);
    await page.waitForTimeout(300);
    expect(pendingIds(approvals)).toEqual([first.id, second.id]);
    for (const id of pendingIds(approvals)) approvals.decide(id, { outcome: 'reject', reason: 'test over', by: 'test' });
  });

  it('the keyboard: Enter held on the first card approves it alone, and Tab then Enter onto the card that slid up does not decide it', async () => {
    const { page, approvals, call } = await openScene();
    const [first, second] = [await call('npm test --one'), await call('npm test --two')];
    await page.locator(`[data-approval="${first.id}"]`).getByRole('button', { name: 'Approve once' }).focus();
    await page.clock.runFor(READ_MS);
    // Held: the key repeats.
    await page.keyboard.down('Enter');
    expect((await first.outcome).ok).toBe(true);
    await goneFrom(page, `[data-approval="${first.id}"]`);
    await page.keyboard.down('Enter');
    await page.keyboard.up('Enter');
    // Tab onto the next card's Approve once, and Enter, at a keyboard's pace.
    const approveOnce = (id: string): Promise<boolean> => page.evaluate<boolean>(`document.activeElement === document.querySelector('[data-approval="${id}"] [data-decision="once"]')`);
    for (let press = 0; press < 10 && !(await approveOnce(second.id)); press += 1) await page.keyboard.press('Tab');
    expect(await approveOnce(second.id)).toBe(true);
    await page.clock.runFor(MOMENT_MS);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    expect(pendingIds(approvals)).toEqual([second.id]);
    approvals.decide(second.id, { outcome: 'reject', reason: 'test over', by: 'test' });
  });
});

/** A definition like WITHHELD_READ under another name and digest, its card of the same shape. */
const withheldAs = (tool: string, digest: string): WithheldDefinition => ({ ...WITHHELD_READ, tool, name: `mcp_files_${tool}`, digest });

describe('settle guard on withheld definitions, in Chromium', () => {
  it('a double click on the first definition approves it, and its second click does not approve the definition drawn in its place', async () => {
    const listed = [withheldAs('read', 'ab'.repeat(32)), withheldAs('send', 'ba'.repeat(32))];
    const approved: string[] = [];
    const withheld = {
      list: () => Promise.resolve(listed.filter((entry) => !approved.includes(`${entry.name}@${entry.digest}`))),
      approve: (name: string, digest: string) => {
        approved.push(`${name}@${digest}`);
        return Promise.resolve();
      },
    };
    const registry = createToolRegistry({ tools: [], host: createFakeHost(), policy: allowAll });
    server = await startConsole({ registry, approvals: createApprovalQueue(), withheld });
    // Tall enough to show both cards without a scroll bar, whose going would re-wrap the text.
    const opened = await browser().newPage({ viewport: { width: 1280, height: 2000 } });
    page = opened;
    const url = server.url;
    await pauseClock(opened, async () => {
      await opened.goto(url);
      await opened.getByRole('button', { name: 'Withheld MCP tools' }).click();
    });
    await page.locator('[data-withheld="mcp_files_send"]').waitFor();
    const point = await buttonCentre(page, '[data-withheld="mcp_files_read"]', 'Approve this definition');
    await page.mouse.move(point.x, point.y);
    await page.clock.runFor(READ_MS);
    await page.mouse.click(point.x, point.y);
    await goneFrom(page, '[data-withheld="mcp_files_read"]');
    // The list is drawn again without the approved definition (twice: after the answer, and on the event every tab gets);
    // the second click of a double click comes a moment later, and the other definition's button is under the pointer.
    await page.waitForTimeout(150);
    await page.clock.runFor(MOMENT_MS);
    expect(await buttonOwnerAt(page, point, 'data-withheld')).toBe('mcp_files_send');
    await page.mouse.click(point.x, point.y);
    await page.waitForTimeout(300);
    expect(approved).toEqual([`mcp_files_read@${'ab'.repeat(32)}`]);
  });
});
