import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import type { ServedGateway } from './serve-gateway.js';

/** A path as a card shows it: where it really is, the spelling when that differs, its flags. */
export interface PendingPath {
  readonly path: string;
  readonly requested?: string;
  readonly flags: readonly string[];
}

/** A pending approval as the console's API shows it. */
export interface Pending {
  readonly id: string;
  readonly toolName: string;
  readonly preview: Record<string, string>;
  readonly target?: {
    readonly files: readonly PendingPath[];
    readonly command?: { readonly argv: readonly string[]; readonly cwd: string; readonly paths?: readonly PendingPath[] };
    readonly http?: { readonly method: string; readonly url: string };
    readonly mcp?: { readonly server: string; readonly tool?: string; readonly arguments: string };
  };
  readonly reasons: { readonly reason: string; readonly protectedPath: boolean; readonly mode?: string; readonly rules: readonly { readonly rule?: string; readonly source: string }[] };
  readonly masked: number;
  readonly diff?: string;
  readonly view?: { readonly subtitle?: string; readonly body?: string };
}

/** The one approval the call raised, once it shows in the console. */
export async function pendingApproval(gateway: ServedGateway, tool: string): Promise<Pending> {
  let found: Pending | undefined;
  await expect
    .poll(
      async () => {
        found = ((await gateway.api('/api/approvals')).body as Pending[]).find((entry) => entry.toolName === tool);
        return found !== undefined;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  return found as Pending;
}

/** Decide an approval through the console's API, as a person would. */
export const decide = (gateway: ServedGateway, id: string, decision: string): Promise<unknown> => gateway.api(`/api/approvals/${id}`, { method: 'POST', body: JSON.stringify({ decision }) });

/**
 * Call `name` through `client`, and while its approval waits replace the workspace file `file` with a link to
 * `linkTo`; then approve it once. Resolves with the card as it was shown and what the call answered.
 */
export async function swapWhileApprovalWaits(
  gateway: ServedGateway,
  client: Client,
  call: { name: string; arguments: Record<string, unknown> },
  file: string,
  linkTo: string,
): Promise<{ card: Pending; result: Awaited<ReturnType<Client['callTool']>> }> {
  const answered = client.callTool(call);
  const card = await pendingApproval(gateway, call.name);
  rmSync(join(gateway.workspace, file), { recursive: true });
  symlinkSync(linkTo, join(gateway.workspace, file));
  await decide(gateway, card.id, 'once');
  return { card, result: await answered };
}

/**
 * Call `name` through `client`, and while its card waits have a second call, which runs unasked, `write_file` with
 * `write`; then approve the first once. Resolves with the card as it was shown and what the first call answered.
 */
export async function approvedAfterRewrite(
  gateway: ServedGateway,
  client: Client,
  call: { name: string; arguments: Record<string, unknown> },
  write: Record<string, unknown>,
): Promise<{ card: Pending; result: Awaited<ReturnType<Client['callTool']>> }> {
  const answered = client.callTool(call);
  const card = await pendingApproval(gateway, call.name);
  const written = await client.callTool({ name: 'write_file', arguments: write });
  expect(written.isError, JSON.stringify(written.content)).toBeFalsy();
  await decide(gateway, card.id, 'once');
  return { card, result: await answered };
}

/**
 * Call `name` through `client` and, if it raises a card, answer it with `decision`. Resolves with what the call
 * returned and the card, or no card when the call answered without asking anyone.
 */
export async function decideIfAsked(
  gateway: ServedGateway,
  client: Client,
  name: string,
  args: Record<string, unknown>,
  decision: string,
): Promise<{ result: object; card: Pending | undefined }> {
  let settled: object | undefined;
  const call = client.callTool({ name, arguments: args }).then((result) => (settled = result));
  let card: Pending | undefined;
  await expect
    .poll(
      async () => {
        card = ((await gateway.api('/api/approvals')).body as Pending[]).find((entry) => entry.toolName === name);
        return card !== undefined || settled !== undefined;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  if (card !== undefined) await decide(gateway, card.id, decision);
  return { result: await call, card };
}

/**
 * Call `run_command` with `args` and answer its card no, once it shows a runner whose files were cut at their
 * bound: no more than 64 listed, the card saying the rest are not bound, judged as naming a protected path.
 */
export async function rejectCutRunnerCard(gateway: ServedGateway, client: Client, args: Record<string, unknown>): Promise<void> {
  const run = client.callTool({ name: 'run_command', arguments: args });
  const card = await pendingApproval(gateway, 'run_command');
  const code = (card.target?.command as { code?: { files: readonly string[]; cut?: true } } | undefined)?.code;
  expect(code?.files.length).toBeLessThanOrEqual(64);
  expect(code?.cut).toBe(true);
  expect(card.reasons.protectedPath).toBe(true);
  await decide(gateway, card.id, 'reject');
  expect((await run).isError).toBe(true);
}
