import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { approvedAfterRewrite, decide, decideIfAsked, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { PACKAGE, PLANTED, PLANTED_MAKEFILE } from './support/runner-packages.js';

// A runner's working folder reached through a link: npm runs in the real folder and climbs the real folders above it,
// whatever the spelling. Through `toolgate serve`, the MCP SDK client and the console, in `accept-edits`: while the
// card of the runner's command waits, a second call (a write the mode approves at once) rewrites a `package.json` (or
// a makefile) the runner climbs to. Approved once, the command runs the code the card was shown, or nothing.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

const MAKEFILE = 'test:\n\techo tests passed\n';

/** Folders made outside the workspace, removed after each test. */
let outside: string[] = [];
afterEach(() => {
  for (const folder of outside) rmSync(folder, { recursive: true, force: true });
  outside = [];
});

interface Setup {
  readonly files: Record<string, string>;
  /** Links of the workspace: name to target (a relative target is read from the link's folder). */
  readonly links: Record<string, string>;
}

type Case = readonly [label: string, run: { command: readonly string[]; cwd?: string }, setup: Setup, write: { path: string; content: string }];
const CASES: readonly Case[] = [
  ['npm test in cwd sub, a link to x/y: the root package.json rewritten', { command: ['npm', 'test'], cwd: 'sub' }, { files: { 'package.json': PACKAGE, 'x/y/notes.md': 'x\n' }, links: { sub: 'x/y' } }, { path: 'package.json', content: PLANTED }],
  ['npm test in cwd sub, a link to x/y: a package.json planted in x', { command: ['npm', 'test'], cwd: 'sub' }, { files: { 'package.json': PACKAGE, 'x/y/notes.md': 'x\n' }, links: { sub: 'x/y' } }, { path: 'x/package.json', content: PLANTED }],
  ['npm test in cwd a/deep, a a link to p/q/r (a link inside the climb)', { command: ['npm', 'test'], cwd: 'a/deep' }, { files: { 'package.json': PACKAGE, 'p/q/r/deep/notes.md': 'x\n' }, links: { a: 'p/q/r' } }, { path: 'package.json', content: PLANTED }],
  ['npm test in cwd a/deep, a a link to p/q/r: a package.json planted in p', { command: ['npm', 'test'], cwd: 'a/deep' }, { files: { 'package.json': PACKAGE, 'p/q/r/deep/notes.md': 'x\n' }, links: { a: 'p/q/r' } }, { path: 'p/package.json', content: PLANTED }],
  ['npm test in cwd sub/deep, sub a link to .. of a deeper folder', { command: ['npm', 'test'], cwd: 'sub/deep' }, { files: { 'package.json': PACKAGE, 'm/n/deep/notes.md': 'x\n' }, links: { sub: 'm/n' } }, { path: 'm/package.json', content: PLANTED }],
  ['npm --prefix sub test, sub a link to x/y', { command: ['npm', '--prefix', 'sub', 'test'] }, { files: { 'x/y/package.json': PACKAGE }, links: { sub: 'x/y' } }, { path: 'x/y/package.json', content: PLANTED }],
  ['npm -C sub test, sub a link to x/y', { command: ['npm', '-C', 'sub', 'test'] }, { files: { 'x/y/package.json': PACKAGE }, links: { sub: 'x/y' } }, { path: 'x/y/package.json', content: PLANTED }],
  ['make -C sub test, sub a link to x/y', { command: ['make', '-C', 'sub', 'test'] }, { files: { 'x/y/Makefile': MAKEFILE }, links: { sub: 'x/y' } }, { path: 'x/y/Makefile', content: PLANTED_MAKEFILE }],
  ['make -C sub test, sub a link to x/y: a GNUmakefile planted', { command: ['make', '-C', 'sub', 'test'] }, { files: { 'x/y/Makefile': MAKEFILE }, links: { sub: 'x/y' } }, { path: 'x/y/GNUmakefile', content: PLANTED_MAKEFILE }],
  ['make test in cwd sub, a link to x/y', { command: ['make', 'test'], cwd: 'sub' }, { files: { 'x/y/Makefile': MAKEFILE }, links: { sub: 'x/y' } }, { path: 'x/y/Makefile', content: PLANTED_MAKEFILE }],
];

const MARKS = ['PWNED', 'x/PWNED', 'x/y/PWNED', 'p/PWNED', 'p/q/r/deep/PWNED', 'm/PWNED', 'm/n/deep/PWNED'];

function workspaceWith(setup: Setup, scope: string): string {
  const workspace = makeWorkspace({ scope, mode: 'accept-edits', policy: { allowedCommandGlobs: ['npm *', 'make *', 'pnpm *', 'yarn *', 'bun *'] } }, setup.files);
  for (const [name, target] of Object.entries(setup.links)) {
    mkdirSync(dirname(join(workspace, name)), { recursive: true });
    symlinkSync(target, join(workspace, name));
  }
  return workspace;
}

describe('attack: a runner climbs the real folders above a working folder reached through a link', () => {
  it.each(CASES)('%s: approved once, it runs what the card was shown, or nothing', async (_label, args, setup, write) => {
    const { gateway, mcp } = await opened.serve(workspaceWith(setup, 'workspace-write'));
    const { card, result } = await approvedAfterRewrite(gateway, mcp, { name: 'run_command', arguments: args }, write);
    const pwned = MARKS.some((mark) => existsSync(join(gateway.workspace, mark)));
    expect(pwned, `ran the rewritten code: ${text(result)} card: ${JSON.stringify(card.target)}`).toBe(false);
    expect(result.isError, text(result)).toBe(true);
    expect(text(result)).toContain('target changed');
  });

  it('npm test in cwd sub, a link to x/y, left alone: the card names the root package.json and the approved run passes', async () => {
    const { gateway, mcp } = await opened.serve(workspaceWith({ files: { 'package.json': PACKAGE, 'x/y/notes.md': 'x\n' }, links: { sub: 'x/y' } }, 'workspace-write'));
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'], cwd: 'sub' } });
    const card = await pendingApproval(gateway, 'run_command');
    expect(card.target?.command).toMatchObject({ code: { files: ['package.json'] } });
    await decide(gateway, card.id, 'once');
    const result = await run;
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain('tests passed');
  });

  it.each([
    ['pnpm -C sub test', ['pnpm', '-C', 'sub', 'test']],
    ['yarn --cwd sub test', ['yarn', '--cwd', 'sub', 'test']],
    ['bun --cwd=sub test', ['bun', '--cwd=sub', 'test']],
  ])('%s, sub a link to x/y: the card binds the package.json of the real folders above, up to the root', async (_label, command) => {
    const { gateway, mcp } = await opened.serve(workspaceWith({ files: { 'package.json': PACKAGE, 'x/package.json': PACKAGE, 'x/y/notes.md': 'x\n' }, links: { sub: 'x/y' } }, 'workspace-write'));
    const run = mcp.callTool({ name: 'run_command', arguments: { command } });
    const card = await pendingApproval(gateway, 'run_command');
    expect(card.target?.command, JSON.stringify(card.target)).toMatchObject({ code: { files: ['x/package.json', 'package.json'] } });
    await decide(gateway, card.id, 'reject');
    expect((await run).isError).toBe(true);
  });

  it('npm test in cwd sub: sub re-pointed under the card at a deeper folder, a package.json planted on its climb', async () => {
    const setup = { files: { 'package.json': PACKAGE, 'x/y/notes.md': 'x\n', 'q/package.json': PLANTED, 'q/r/s/notes.md': 'x\n' }, links: { sub: 'x/y' } };
    const { gateway, mcp } = await opened.serve(workspaceWith(setup, 'workspace-write'));
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'], cwd: 'sub' } });
    const card = await pendingApproval(gateway, 'run_command');
    // Re-pointed in one step, as any process of the machine could while the card waits.
    symlinkSync('q/r/s', join(gateway.workspace, 'sub.next'));
    renameSync(join(gateway.workspace, 'sub.next'), join(gateway.workspace, 'sub'));
    await decide(gateway, card.id, 'once');
    const result = await run;
    expect(['PWNED', 'q/PWNED', 'q/r/s/PWNED'].some((mark) => existsSync(join(gateway.workspace, mark))), `ran the planted code: ${text(result)}`).toBe(false);
    expect(result.isError, text(result)).toBe(true);
    expect(text(result)).toContain('target changed');
  });

  it('npm test in cwd sub approved for the session asks again once the root package.json is rewritten', async () => {
    const { gateway, mcp } = await opened.serve(workspaceWith({ files: { 'package.json': PACKAGE, 'x/y/notes.md': 'x\n' }, links: { sub: 'x/y' } }, 'workspace-write'));
    const args = { command: ['npm', 'test'], cwd: 'sub' };
    const first = mcp.callTool({ name: 'run_command', arguments: args });
    await decide(gateway, (await pendingApproval(gateway, 'run_command')).id, 'session');
    expect(text(await first)).toContain('tests passed');
    expect((await decideIfAsked(gateway, mcp, 'run_command', args, 'reject')).card).toBeUndefined();
    await mcp.callTool({ name: 'write_file', arguments: { path: 'package.json', content: PLANTED } });
    const rewritten = await decideIfAsked(gateway, mcp, 'run_command', args, 'reject');
    expect(rewritten.card, `ran without asking: ${text(rewritten.result)}`).toBeDefined();
    expect(MARKS.some((mark) => existsSync(join(gateway.workspace, mark)))).toBe(false);
  });

  it('npm test in a working folder outside the workspace through a link (full scope) binds the folders above it', async () => {
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-runner-outside-')));
    outside.push(elsewhere);
    mkdirSync(join(elsewhere, 'p', 'q'), { recursive: true });
    writeFileSync(join(elsewhere, 'package.json'), PACKAGE);
    const workspace = workspaceWith({ files: {}, links: { out: join(elsewhere, 'p', 'q') } }, 'full');
    const gateway = opened.gateway(await serveWorkspace(workspace));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'], cwd: 'out' } });
    const card = await pendingApproval(gateway, 'run_command');
    expect(card.target?.command, JSON.stringify(card.target)).toMatchObject({ code: { files: expect.arrayContaining([join(elsewhere, 'package.json')]) as unknown } });
    // The rewrite, as any other process of the machine could make it while the card waits.
    writeFileSync(join(elsewhere, 'package.json'), PLANTED);
    await decide(gateway, card.id, 'once');
    const result = await run;
    const pwned = ['PWNED', 'p/PWNED', 'p/q/PWNED'].some((mark) => existsSync(join(elsewhere, mark)));
    expect(pwned, `ran the rewritten code: ${text(result)}`).toBe(false);
    expect(result.isError, text(result)).toBe(true);
    expect(text(result)).toContain('target changed');
  });
});
