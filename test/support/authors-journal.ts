import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { connectClient, makeWorkspace } from './serve-gateway.js';
import { gatewayAuth, runCli, startCli, type RunningCli } from './spawn-cli.js';

const EFFECT_SERVER = fileURLToPath(new URL('../fixtures/mcp/effect-server.mjs', import.meta.url));

/** The upstream change the author's gateway was killed under, its claim left open. */
export const CHANGE = { name: 'mcp_fx_apply_change', arguments: { change: 'rename the release branch' } };

export type ServeAs = (workspace: string, home: string) => Promise<{ cli: RunningCli; started: Record<string, unknown> | undefined }>;

/** `toolgate serve` over HTTP in a workspace as the user whose home is given: its start-up document, or undefined when it did not start. Stopped after each test. */
export function useServeAs(): ServeAs {
  const running: RunningCli[] = [];
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map((cli) => cli.stop()));
  });
  return async (workspace, home) => {
    const cli = startCli(['--json', 'serve', '--http', '0'], workspace, { HOME: home });
    running.push(cli);
    const started = await cli.ready.catch(() => undefined);
    return { cli, started };
  };
}

/**
 * The author's workspace: a receipt of a read, and an upstream change allowed to run without a person, started
 * through the author's gateway (under the author's `home`), which is then killed with the effect under way. Its
 * journal holds the author's receipts and a claim left open; the change's marker file is emptied after.
 */
export async function authorsWorkspace(serveAs: ServeAs, author: string): Promise<{ workspace: string; marker: string }> {
  const outside = mkdtempSync(join(tmpdir(), 'toolgate-authors-journal-effect-'));
  const marker = join(outside, 'marker.txt');
  const held = join(outside, 'hold');
  writeFileSync(held, '');
  const workspace = makeWorkspace(
    { mode: 'auto', servers: { fx: { command: process.execPath, args: [EFFECT_SERVER, marker, held] } }, policy: { rules: [{ tool: 'mcp_fx_apply_change', decision: 'allow' }] } },
    { 'notes.md': 'notes\n' },
  );
  expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace, undefined, { HOME: author })).code).toBe(0);
  await leaveClaimOpen(serveAs, workspace, author, marker, held);
  return { workspace, marker };
}

/**
 * The author's gateway, started in `workspace` (whose upstream `fx` marks its change in `marker` and holds it while
 * `held` is there), killed with the change under way: its claim stays open. The marker is emptied after.
 */
export async function leaveClaimOpen(serveAs: ServeAs, workspace: string, author: string, marker: string, held: string): Promise<void> {
  const first = await serveAs(workspace, author);
  const { client } = await connectClient(new URL(first.started?.mcp as string), 'author', undefined, gatewayAuth(first.started ?? {}));
  const pending = client.callTool(CHANGE).catch((error: unknown) => error);
  await expect.poll(() => (existsSync(marker) ? readFileSync(marker, 'utf8') : ''), { timeout: 30_000 }).toContain('rename the release branch');
  first.cli.child.kill('SIGKILL');
  await new Promise((resolve) => first.cli.child.once('exit', resolve));
  await client.close();
  await pending;
  rmSync(held);
  writeFileSync(marker, '');
}

/**
 * Whether the gateway whose start-up document is `started` refused the user's own change because of the claim the
 * author's gateway left open; false when it did not start.
 */
export async function changeHeldByAuthorsClaim(started: Record<string, unknown> | undefined): Promise<boolean> {
  if (started === undefined || started.ok === false || typeof started.mcp !== 'string') return false;
  const { client } = await connectClient(new URL(started.mcp), 'victim', undefined, gatewayAuth(started));
  try {
    const result = await client.callTool(CHANGE);
    return JSON.stringify(result.content).includes('an earlier dispatch of the same action');
  } finally {
    await client.close();
  }
}
