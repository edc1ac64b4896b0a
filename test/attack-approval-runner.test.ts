import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { useChromium } from './support/chromium.js';
import { clickWhenSettled } from './support/console-pointer.js';
import { decide, decideIfAsked, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// What a command's approval binds of the code its program reads by convention, with two calls in flight through
// `toolgate serve`, the MCP SDK client and the console, in `accept-edits`: the model's writes run at once, its
// commands ask. While the card of `npm test` (or `make test`) waits, a second call rewrites what that command runs;
// the card showed two words, and the person approved the tests they know. Each checks the end effect on disk.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

const pkg = (test: string): string => `${JSON.stringify({ name: 'demo', version: '1.0.0', scripts: { test } })}\n`;
const PACKAGE = pkg('echo tests passed');
const PLANTED = pkg('touch PWNED; echo tests passed');
const MAKEFILE = 'test:\n\techo tests passed\n';
const PLANTED_MAKEFILE = 'test:\n\ttouch PWNED; echo tests passed\n';

type Case = readonly [label: string, command: readonly string[], files: Record<string, string>, write: { path: string; content: string }, shows: readonly string[]];
const CASES: readonly Case[] = [
  ['npm test, package.json rewritten', ['npm', 'test'], { 'package.json': PACKAGE }, { path: 'package.json', content: PLANTED }, ['package.json']],
  ['make test, Makefile rewritten', ['make', 'test'], { Makefile: MAKEFILE }, { path: 'Makefile', content: PLANTED_MAKEFILE }, ['Makefile']],
  ['make test, a GNUmakefile planted beside the Makefile (make reads it first)', ['make', 'test'], { Makefile: MAKEFILE }, { path: 'GNUmakefile', content: PLANTED_MAKEFILE }, ['Makefile']],
  ['timeout 60 npm test, behind a wrapper', ['timeout', '60', 'npm', 'test'], { 'package.json': PACKAGE }, { path: 'package.json', content: PLANTED }, ['package.json']],
  ['npm --prefix app test, another folder', ['npm', '--prefix', 'app', 'test'], { 'app/package.json': PACKAGE }, { path: 'app/package.json', content: PLANTED }, ['app/package.json']],
  ['make -C app test, another folder', ['make', '-C', 'app', 'test'], { 'app/Makefile': MAKEFILE }, { path: 'app/Makefile', content: PLANTED_MAKEFILE }, ['app/Makefile']],
];

async function serve(files: Record<string, string>): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'accept-edits', policy: { allowedCommandGlobs: ['npm *', 'make *', 'timeout *'] } }, { files }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

/** Where the payload would have left its mark: the workspace, or the folder the runner was moved to. */
const pwned = (gateway: ServedGateway): boolean => existsSync(join(gateway.workspace, 'PWNED')) || existsSync(join(gateway.workspace, 'app', 'PWNED'));

describe('attack: the code a runner reads changes under its card', () => {
  it.each(CASES)('%s: approved once, it runs what the card was shown, or nothing', async (_label, command, files, write, shows) => {
    const { gateway, mcp } = await serve(files);
    const run = mcp.callTool({ name: 'run_command', arguments: { command } });
    const card = await pendingApproval(gateway, 'run_command');
    // The card names the file the runner reads its code from, and says what is not bound.
    expect(card.target?.command).toMatchObject({ code: { files: shows } });
    // The second call: an edit the mode approves at once, while the person reads the card.
    const written = await mcp.callTool({ name: 'write_file', arguments: write });
    expect(written.isError, text(written)).toBeFalsy();
    await decide(gateway, card.id, 'once');
    const result = await run;
    expect(pwned(gateway), `ran the rewritten code: ${text(result)}`).toBe(false);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('target changed');
  });

  it('npm test approved for the session asks again once package.json is rewritten, and runs at once while it is not', async () => {
    const { gateway, mcp } = await serve({ 'package.json': PACKAGE });
    const first = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'] } });
    await decide(gateway, (await pendingApproval(gateway, 'run_command')).id, 'session');
    expect(text(await first)).toContain('tests passed');
    const again = await decideIfAsked(gateway, mcp, 'run_command', { command: ['npm', 'test'] }, 'reject');
    expect(again.card).toBeUndefined();
    await mcp.callTool({ name: 'write_file', arguments: { path: 'package.json', content: PLANTED } });
    const rewritten = await decideIfAsked(gateway, mcp, 'run_command', { command: ['npm', 'test'] }, 'reject');
    expect(rewritten.card, `ran without asking: ${text(rewritten.result)}`).toBeDefined();
    expect(pwned(gateway)).toBe(false);
  });
});

describe('attack, in the browser: the card of a runner', () => {
  const browser = useChromium();

  it('says which file npm test runs the code of, that it is bound, and that what that code runs is not', async () => {
    const { gateway, mcp } = await serve({ 'package.json': PACKAGE });
    mkdirSync('test-results/console', { recursive: true });
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'] } });
    const page = await browser().newPage();
    await page.goto(String(gateway.consoleUrl));
    await page.getByRole('button', { name: /Approvals/ }).click();
    const card = page.locator('[data-approval]');
    await card.waitFor({ timeout: 20_000 });
    const note = (await card.getByRole('note').allTextContents()).join('\n');
    expect(note).toContain('package.json');
    expect(note).toContain('bound to this approval');
    expect(note).toContain('is not bound');
    await page.screenshot({ path: 'test-results/console/attack-runner-code-card.png', fullPage: true });
    await clickWhenSettled(card.getByRole('button', { name: /Reject/ }));
    expect((await run).isError).toBe(true);
    expect(pwned(gateway)).toBe(false);
    await page.close();
  });
});
