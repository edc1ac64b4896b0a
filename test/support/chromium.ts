import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/**
 * Debian's Chromium, headless, with background networking off (the machine
 * has no network). Never a browser download. Playwright gives every launch a
 * fresh, empty profile of its own.
 */
export const CHROMIUM_PATH = process.env.TOOLGATE_CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** One Chromium for the tests of the enclosing describe block (or file): launched before them, closed after them. */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined) throw new Error('the browser is open only inside the tests of its describe block');
    return browser;
  };
}
