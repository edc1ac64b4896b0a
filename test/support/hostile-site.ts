import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll } from 'vitest';
import { useChromium } from './chromium.js';

export interface HostileSite {
  /** The operator's browser (Debian's Chromium), open for the describe block. */
  readonly browser: () => Browser;
  /** Serve `html()` from another loopback port, as a hostile site the operator has open would; the page's address. */
  readonly serve: (html: () => string) => Promise<string>;
}

/** A browser, and a page on another loopback port, for the tests of one describe block: both closed after them. */
export function useHostileSite(): HostileSite {
  const browser = useChromium();
  let hostile: Server | undefined;
  afterAll(async () => {
    await new Promise((resolve) => (hostile === undefined ? resolve(undefined) : hostile.close(resolve)));
  });
  return {
    browser,
    serve: async (html) => {
      const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(html()));
      hostile = server;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    },
  };
}
