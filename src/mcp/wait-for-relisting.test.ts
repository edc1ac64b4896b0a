import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import type { UpstreamServer } from './create-mcp-capability.js';
import { waitForRelisting } from './wait-for-relisting.js';

function serverRelisting(relisting: Promise<void> | undefined, timeoutMs = 1_000): UpstreamServer {
  return { config: { name: 'up', transport: 'stdio', command: 'unused', timeoutMs }, client: {} as Client, stderr: { text: () => '' }, entries: new Map(), relisting };
}

describe('waitForRelisting', () => {
  it('goes on at once when no listing is announced, and once the announced one settles', async () => {
    await expect(waitForRelisting(serverRelisting(undefined), 'mcp_up_look', undefined)).resolves.toBeUndefined();
    let settle = (): void => undefined;
    let done = false;
    const waiting = waitForRelisting(serverRelisting(new Promise((resolve) => (settle = resolve))), 'mcp_up_look', undefined).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    settle();
    await waiting;
    expect(done).toBe(true);
  });

  it('fails as timed out when the listing does not come within the call’s timeout', async () => {
    const never = new Promise<void>(() => undefined);
    await expect(waitForRelisting(serverRelisting(never, 30), 'mcp_up_look', undefined)).rejects.toMatchObject({ code: 'TOOL_TIMEOUT', message: 'Tool "mcp_up_look" timed out after 30 ms.' });
  });

  it('waits as well for a listing the server announced while the call waited', async () => {
    let settleFirst = (): void => undefined;
    let settleSecond = (): void => undefined;
    const server = serverRelisting(new Promise((resolve) => (settleFirst = resolve)));
    let done = false;
    const waiting = waitForRelisting(server, 'mcp_up_look', undefined).then(() => (done = true));
    server.relisting = new Promise((resolve) => (settleSecond = resolve));
    settleFirst();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    settleSecond();
    await waiting;
    expect(done).toBe(true);
  });

  it('bounds the whole wait by one timeout, however often the server announces a change', async () => {
    const server = serverRelisting(Promise.resolve(), 60);
    // A listing that settles every 10 ms, each announcing the next before it settles: however late a loaded machine
    // runs the timers, the call never finds a settled listing with no change announced after it.
    let announcing = true;
    const announce = (): void => {
      server.relisting = new Promise((resolve) =>
        setTimeout(() => {
          if (announcing) announce();
          resolve();
        }, 10),
      );
    };
    const started = Date.now();
    try {
      announce();
      await expect(waitForRelisting(server, 'mcp_up_look', undefined)).rejects.toMatchObject({ code: 'TOOL_TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      announcing = false;
    }
  });

  it('ends with the caller’s reason when it aborts, before or while it waits', async () => {
    const never = new Promise<void>(() => undefined);
    const reason = new Error('stopped');
    await expect(waitForRelisting(serverRelisting(never), 'mcp_up_look', AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const waiting = waitForRelisting(serverRelisting(never), 'mcp_up_look', controller.signal);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});
