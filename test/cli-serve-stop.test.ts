import { existsSync } from 'node:fs';
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, serveGateway } from './support/serve-gateway.js';
import { startCli } from './support/spawn-cli.js';

/*
 * `toolgate serve` stopping (SIGTERM) while a console page is open. A page
 * keeps its connections alive, and one busy with a request when the console
 * stops can carry the page's next request after it: an event stream opened
 * then must not keep the gateway from exiting.
 */

const BODY = JSON.stringify({ decision: 'reject' });

/** A request to the console on `agent`, with its token; `body` is written by the caller. */
function consoleRequest(consoleUrl: URL, agent: Agent, method: 'GET' | 'POST', path: string, onResponse: (response: IncomingMessage) => void): ClientRequest {
  const headers: Record<string, string | number> = { 'x-toolgate-token': consoleUrl.searchParams.get('token') ?? '' };
  if (method === 'POST') Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
  const sent = request({ host: '127.0.0.1', port: consoleUrl.port, path, method, agent, headers }, onResponse);
  sent.on('error', () => undefined);
  return sent;
}

function exitWithin(child: { exitCode: number | null; once(event: 'exit', listener: () => void): unknown }, ms: number): Promise<'exited' | 'still running'> {
  if (child.exitCode !== null) return Promise.resolve('exited');
  return Promise.race([new Promise<'exited'>((resolve) => child.once('exit', () => resolve('exited'))), sleep(ms).then(() => 'still running' as const)]);
}

describe('toolgate serve stops with a console page open', () => {
  it('exits on SIGTERM though the page opens an event stream on a connection that was busy when the console stopped', async () => {
    const gateway = await serveGateway({ scope: 'workspace-write', mode: 'ask' });
    const consoleUrl = gateway.consoleUrl as URL;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const { child } = gateway.cli;
    let streamOpened = false;
    try {
      // A decision whose body is still arriving when the gateway is told to stop: its connection is busy.
      // Done when it is answered, or when its connection is closed under it.
      const answered = new Promise<void>((resolve) => {
        const busy = consoleRequest(consoleUrl, agent, 'POST', '/api/approvals/none_pending', (response) => response.resume());
        busy.once('close', () => resolve());
        busy.write(BODY.slice(0, 5));
        void sleep(300).then(async () => {
          child.kill('SIGTERM');
          await sleep(300);
          busy.end(BODY.slice(5));
        });
      });
      await answered;
      // The page's next request, on the same kept-alive connection.
      consoleRequest(consoleUrl, agent, 'GET', '/api/events', (response) => {
        streamOpened = response.statusCode === 200;
        response.resume();
      }).end();
      expect(await exitWithin(child, 10_000)).toBe('exited');
    } finally {
      agent.destroy();
      child.kill('SIGKILL');
    }
    // The busy connection was closed with the console, so the stream found nothing to open on.
    expect(streamOpened).toBe(false);
  }, 30_000);
});

describe('toolgate serve stopped as soon as it has started', () => {
  it('closes on a SIGTERM sent the moment its start-up document is out, instead of being killed by it with its journal open', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask' });
    const cli = startCli(['--json', 'serve', '--http', '0'], workspace);
    const started = await cli.ready;
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => cli.child.once('exit', (code, signal) => resolve({ code, signal })));
    cli.child.kill('SIGTERM');
    // Killed by the signal's default action, it ended with the signal and left its console locator behind.
    expect(await ended).toEqual({ code: 0, signal: null });
    expect(existsSync(join(workspace, '.toolgate', `console-${String(cli.child.pid)}.json`)), JSON.stringify(started)).toBe(false);
  });
});
