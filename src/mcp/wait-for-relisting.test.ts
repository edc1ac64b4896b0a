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
