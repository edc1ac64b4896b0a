// `kill -9` of a real gateway (the built CLI) while an upstream MCP tool has its effect under way, then a restart.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { appendForged, headOf } from '../src/journal/sqlite/__fixtures__/forge-row.js';
import { connectClient, consoleApi, makeWorkspace } from './support/serve-gateway.js';
import { gatewayAuth, runCli, startCli, type RunningCli } from './support/spawn-cli.js';

const EFFECT_SERVER = fileURLToPath(new URL('./fixtures/mcp/effect-server.mjs', import.meta.url));
const CHANGE = { name: 'mcp_fx_apply_change', arguments: { change: 'rename the release branch' } };

const running: RunningCli[] = [];
const clients: Client[] = [];
let hold: string | undefined;
afterEach(async () => {
  if (hold !== undefined) rmSync(hold, { force: true });
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(running.splice(0).map((cli) => cli.stop()));
});

interface Served {
  readonly cli: RunningCli;
  readonly mcpUrl: URL;
  readonly consoleUrl: URL;
  readonly auth: { requestInit: RequestInit };
}

async function serve(workspace: string): Promise<Served> {
  const cli = startCli(['--json', 'serve', '--http', '0'], workspace);
  running.push(cli);
  const started = await cli.ready;
  return { cli, mcpUrl: new URL(String(started.mcp)), consoleUrl: new URL(String(started.console)), auth: gatewayAuth(started) };
}

async function client(gateway: Served): Promise<Client> {
  const { client: connected } = await connectClient(gateway.mcpUrl, 'crash-test-client', undefined, gateway.auth);
  clients.push(connected);
  return connected;
}

interface Listed {
  readonly claimId: string;
  readonly toolName: string;
  readonly callId: string;
  readonly holder: string;
  readonly holderState: string;
  readonly target?: { readonly mcp?: { readonly server: string; readonly tool: string } };
}

const marks = (marker: string): string[] => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : []);
const text = (result: unknown): string => JSON.stringify((result as { content?: unknown }).content);

/** A workspace whose upstream change runs without a person, started through a gateway that is then killed with the effect under way. */
async function killedMidEffect(journal: object = {}): Promise<{ workspace: string; marker: string; held: string; killedPid: number | undefined }> {
  const outside = mkdtempSync(join(tmpdir(), 'toolgate-crash-effect-'));
  const marker = join(outside, 'marker.txt');
  const held = join(outside, 'hold');
  hold = held;
  writeFileSync(held, '');
  // In `auto` mode a rule naming the tool allows the change, so it runs without a person (an upstream tool is governed).
  const workspace = makeWorkspace({
    mode: 'auto',
    journal,
    servers: { fx: { command: process.execPath, args: [EFFECT_SERVER, marker, held] } },
    policy: { rules: [{ tool: 'mcp_fx_apply_change', decision: 'allow' }] },
  });
  const first = await serve(workspace);
  const caller = await client(first);
  const pending = caller.callTool(CHANGE).catch((error: unknown) => error);
  await expect.poll(() => marks(marker), { timeout: 30_000 }).toEqual(['rename the release branch']);
  const killedPid = first.cli.child.pid;
  first.cli.child.kill('SIGKILL');
  await new Promise((resolve) => first.cli.child.once('exit', resolve));
  running.splice(running.indexOf(first.cli), 1);
  // The call's answer never comes: closing the client ends it now rather than at the request timeout.
  await caller.close();
  await pending;
  return { workspace, marker, held, killedPid };
}

/** The one claim the killed gateway left open, as `toolgate audit unresolved` lists it. */
async function openClaim(workspace: string): Promise<Listed> {
  const claims = JSON.parse((await runCli(['--json', 'audit', 'unresolved'], workspace)).stdout) as Listed[];
  expect(claims).toHaveLength(1);
  return claims[0] as Listed;
}

/**
 * The journal goes on after the crash (reads, journaled and signed by another process), so the claim is no longer
 * the last row; then a `released` row for it is forged, not after the head, which the journal checks, but under
 * the number of the row after the claim.
 */
async function releaseForgedBelowHead(workspace: string, claim: Listed): Promise<void> {
  writeFileSync(join(workspace, 'notes.md'), 'hello\n');
  for (let read = 0; read < 2; read += 1) expect((await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace)).code).toBe(0);
  const db = new Database(join(workspace, '.toolgate', 'journal.db'));
  const { seq, key, hash } = db.prepare<[string], { seq: number; key: string; hash: string }>(`SELECT seq, key, hash FROM claims WHERE claim_id = ?`).get(claim.claimId)!;
  expect(headOf(db).seq).toBeGreaterThan(seq + 1);
  appendForged(db, 'claims', { at: Date.now(), claim_id: claim.claimId, key, state: 'released', body: JSON.stringify({ resolution: 'failed', by: 'operator' }), key_id: null }, { seq, hash });
  db.close();
}

/** Restarted after a forgery, with the change free to finish, the gateway is asked for it again: refused, and not run a second time. */
async function refusedAgain(workspace: string, marker: string, held: string): Promise<Served> {
  rmSync(held);
  const second = await serve(workspace);
  const again = await (await client(second)).callTool(CHANGE);
  expect(again.isError).toBe(true);
  expect(text(again)).toContain('the journal could not record the call');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(marks(marker)).toHaveLength(1);
  return second;
}

describe('a gateway killed mid-effect', () => {
  it('leaves its claim visible (console and audit unresolved), never re-runs it, and runs it again only after an operator resolves it, journaled', async () => {
    // The effect starts, and the gateway dies under it.
    const { workspace, marker, held, killedPid } = await killedMidEffect();

    // Restarted: the claim is listed by the CLI and shown by the console.
    const second = await serve(workspace);
    const listed = await runCli(['--json', 'audit', 'unresolved'], workspace);
    expect(listed.code).toBe(0);
    const claims = JSON.parse(listed.stdout) as Listed[];
    expect(claims).toHaveLength(1);
    const [claim] = claims as [Listed];
    expect(claim).toMatchObject({ toolName: 'mcp_fx_apply_change', holder: expect.stringContaining(`pid ${String(killedPid)} on `), holderState: 'gone', target: { mcp: { server: 'fx', tool: 'apply_change' } } });
    const human = await runCli(['audit', 'unresolved'], workspace);
    expect(human.stdout).toContain(claim.claimId);
    expect(human.stdout).toContain('toolgate audit resolve <claim> --as failed');
    expect((await consoleApi(second.consoleUrl, '/api/unresolved')).body).toEqual([expect.objectContaining({ claimId: claim.claimId, toolName: 'mcp_fx_apply_change' })]);

    // The same action again, from a new client session (a new call id): refused, saying why; the effect does not run twice.
    const again = await (await client(second)).callTool(CHANGE);
    expect(again.isError).toBe(true);
    expect(text(again)).toContain(`an earlier dispatch of the same action (journal claim ${claim.claimId}`);
    expect(text(again)).toContain('it is not run again until an operator resolves that claim');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(marks(marker)).toHaveLength(1);

    // The operator checked: the change did not complete. The answer is a chained journal row.
    const resolved = await runCli(['audit', 'resolve', claim.claimId, '--as', 'failed', '--note', 'checked the branch: not renamed'], workspace);
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toContain(`resolved claim ${claim.claimId}`);
    const journal = join(workspace, '.toolgate', 'journal.db');
    const row = execFileSync('sqlite3', [journal, `SELECT body FROM claims WHERE claim_id = '${claim.claimId}' AND state = 'released'`], { encoding: 'utf8' });
    expect(JSON.parse(row)).toMatchObject({ resolution: 'failed', note: 'checked the branch: not renamed', by: expect.stringContaining('toolgate audit resolve') });
    expect(JSON.parse((await runCli(['--json', 'audit', 'unresolved'], workspace)).stdout)).toEqual([]);
    expect((await consoleApi(second.consoleUrl, '/api/unresolved')).body).toEqual([]);
    expect((await runCli(['audit', 'resolve', claim.claimId, '--as', 'done'], workspace)).code).toBe(2);

    // Now the action may run again, and does, once.
    rmSync(held);
    const rerun = await (await client(second)).callTool(CHANGE);
    expect(rerun.isError).not.toBe(true);
    expect(text(rerun)).toContain('applied rename the release branch');
    expect(marks(marker)).toHaveLength(2);
    const verified = await runCli(['audit', 'verify'], workspace);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('chain verified');
  }, 240_000);

  it('with signing on, a "released" row forged by a writer without the key does not let the change run again, and is not signed over', async () => {
    const { workspace, marker, held } = await killedMidEffect({ sign: true });
    const claim = await openClaim(workspace);

    // The attacker can write the file, not read the key: a correctly linked, unsigned row that closes the claim.
    const db = new Database(join(workspace, '.toolgate', 'journal.db'));
    const key = db.prepare<[string], { key: string }>(`SELECT key FROM claims WHERE claim_id = ?`).get(claim.claimId)!.key;
    const forged = appendForged(db, 'claims', { at: Date.now(), claim_id: claim.claimId, key, state: 'released', body: JSON.stringify({ resolution: 'failed', by: 'operator' }), key_id: null }, headOf(db));
    db.close();

    // Nothing signs over the forged row; the operator is told why, on the gateway's own output, and the model is not.
    const second = await refusedAgain(workspace, marker, held);
    expect(second.cli.stderr()).toContain(`ends on a row that is not signed with the journal's key (claims #${String(forged.seq)})`);
    const verified = await runCli(['audit', 'verify'], workspace);
    expect(verified.code).not.toBe(0);
    expect(`${verified.stdout}${verified.stderr}`).toContain(`claims #${String(forged.seq)}`);
  }, 240_000);

  it('with signing on, a receipt forged with the number of the signed head, which would settle the claim, does not let the change run again', async () => {
    const { workspace, marker, held } = await killedMidEffect({ sign: true });
    const claim = await openClaim(workspace);

    // Not appended after the head, which the journal checks, but beside it: a receipt that names the claim, numbered as the head.
    const db = new Database(join(workspace, '.toolgate', 'journal.db'));
    const { key, body } = db.prepare<[string], { key: string; body: string }>(`SELECT key, body FROM claims WHERE claim_id = ?`).get(claim.claimId)!;
    const head = headOf(db);
    const { prev_hash: previous } = db.prepare<[{ seq: number }], { prev_hash: string }>(`SELECT prev_hash FROM events WHERE seq = @seq UNION ALL SELECT prev_hash FROM claims WHERE seq = @seq`).get({ seq: head.seq })!;
    const { actionDigest } = JSON.parse(body) as { actionDigest: string };
    const receipt = { at: Date.now(), key, claim_id: claim.claimId, run_id: null, tool: claim.toolName, action_digest: actionDigest, body: JSON.stringify({ ok: true, value: 'applied', content: 'applied' }), key_id: null };
    appendForged(db, 'receipts', receipt, { seq: head.seq - 1, hash: previous });
    db.close();

    const second = await refusedAgain(workspace, marker, held);
    // Named by the walk below the head at open, or by the head's own check: two rows hold one number.
    expect(second.cli.stderr()).toMatch(new RegExp(`rows? numbered ${String(head.seq)}\\b`));
    expect((await runCli(['audit', 'verify'], workspace)).code).not.toBe(0);
  }, 240_000);

  it('with signing on, a "released" row forged under the number of a signed row below the head does not let the change run again', async () => {
    const { workspace, marker, held } = await killedMidEffect({ sign: true });
    const claim = await openClaim(workspace);
    await releaseForgedBelowHead(workspace, claim);

    const second = await refusedAgain(workspace, marker, held);
    expect(second.cli.stderr()).toContain(`does not verify below its head`);
    expect((await runCli(['audit', 'verify'], workspace)).code).not.toBe(0);
  }, 240_000);

  it('with signing on, a "released" row forged below the head while the gateway runs does not let the change run again', async () => {
    const { workspace, marker, held } = await killedMidEffect({ sign: true });
    const claim = await openClaim(workspace);
    // Restarted, the gateway refuses the change while the claim is open: it has read the claim.
    const second = await serve(workspace);
    const refused = await (await client(second)).callTool(CHANGE);
    expect(text(refused)).toContain(`an earlier dispatch of the same action (journal claim ${claim.claimId}`);
    // While it runs.
    await releaseForgedBelowHead(workspace, claim);

    // The change is free to finish, and asked for again of the same gateway: the forged row is never read (it was not
    // walked), so the claim is still in doubt: refused, and not run a second time.
    rmSync(held);
    const again = await (await client(second)).callTool(CHANGE);
    expect(again.isError).toBe(true);
    expect(text(again)).toContain(`an earlier dispatch of the same action (journal claim ${claim.claimId}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(marks(marker)).toHaveLength(1);
    expect((await runCli(['audit', 'verify'], workspace)).code).not.toBe(0);
  }, 240_000);
});
