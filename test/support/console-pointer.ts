import type { Locator, Page } from 'playwright-core';

/*
 * Where the operator's pointer is on the console page, for tests that click at
 * fixed coordinates: what lies under the pointer when the click lands is what
 * they check. The page's own code is evaluated as strings (the tests are
 * compiled without the DOM's types).
 */

export interface Point {
  readonly x: number;
  readonly y: number;
}

/** The centre of the button named `button` inside the element `selector` selects, where the pointer rests. */
export async function buttonCentre(page: Page, selector: string, button: string): Promise<Point> {
  const box = await page.locator(selector).getByRole('button', { name: button }).boundingBox();
  if (box === null) throw new Error(`no ${button} button is drawn in ${selector}`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The card (named by its `attribute`) whose decision button a click at `point` would hit now, or null. */
export function buttonOwnerAt(page: Page, point: Point, attribute = 'data-approval'): Promise<string | null> {
  const name = JSON.stringify(attribute);
  return page.evaluate<string | null>(
    `document.elementFromPoint(${point.x}, ${point.y})?.closest('.actions button')?.closest('[' + ${name} + ']')?.getAttribute(${name}) ?? null`,
  );
}

/** Resolves once nothing on the page matches `selector`: the card it names was taken away. */
export async function goneFrom(page: Page, selector: string): Promise<void> {
  await page.locator(selector).waitFor({ state: 'detached', timeout: 20_000 });
}

/** Longer than the console's settle time (600 ms), for a card that had to move into view to settle before its button answers. */
const SETTLE_WAIT_MS = 800;

/**
 * Click a decision button as a person does: brought into view first, then
 * clicked once its card has stayed still there. A click that scrolled the card
 * (as `Locator.click` does) lands while it is still moving, and the console
 * rightly ignores it.
 */
export async function clickWhenSettled(button: Locator): Promise<void> {
  await button.scrollIntoViewIfNeeded();
  await button.page().waitForTimeout(SETTLE_WAIT_MS);
  await button.click();
}
