import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { approvedAfterRewrite, decide, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { PACKAGE, pkg, PLANTED, PLANTED_MAKEFILE } from './support/runner-packages.js';

// The other ways a runner finds its code, with two calls in flight through `toolgate serve`, the MCP SDK client and
// the console, in `accept-edits`: while the card of a runner's command waits, a second call (an edit the mode
// approves at once) rewrites the file that command reads its code from. The card named other files, or none.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

const ROOT = pkg('echo root tests', { workspaces: ['a'] });
const MAKEFILE = 'test:\n\techo tests passed\n';

type Case = readonly [label: string, run: { command: readonly string[]; cwd?: string }, files: Record<string, string>, write: { path: string; content: string }];
const CASES: readonly Case[] = [
  ['npm test in a folder with no package.json (npm takes the one above)', { command: ['npm', 'test'], cwd: 'sub' }, { 'package.json': PACKAGE, 'sub/notes.md': 'x\n' }, { path: 'package.json', content: PLANTED }],
  ['npm test -w a (a workspace\'s package.json)', { command: ['npm', 'test', '-w', 'a'] }, { 'package.json': ROOT, 'a/package.json': PACKAGE }, { path: 'a/package.json', content: PLANTED }],
  ['npm --workspace=a test', { command: ['npm', '--workspace=a', 'test'] }, { 'package.json': ROOT, 'a/package.json': PACKAGE }, { path: 'a/package.json', content: PLANTED }],
  ['npm test two folders below, with no package.json on the way', { command: ['npm', 'test'], cwd: 'sub/deep' }, { 'package.json': PACKAGE, 'sub/deep/notes.md': 'x\n' }, { path: 'package.json', content: PLANTED }],
  ['npm test below, a package.json planted on the way up', { command: ['npm', 'test'], cwd: 'sub/deep' }, { 'package.json': PACKAGE, 'sub/deep/notes.md': 'x\n' }, { path: 'sub/package.json', content: PLANTED }],
  ['make -C a -C b test (each -C below the last)', { command: ['make', '-C', 'a', '-C', 'b', 'test'] }, { 'a/b/Makefile': MAKEFILE }, { path: 'a/b/Makefile', content: PLANTED_MAKEFILE }],
  ['make -f other.mk test', { command: ['make', '-f', 'other.mk', 'test'] }, { 'other.mk': MAKEFILE }, { path: 'other.mk', content: PLANTED_MAKEFILE }],
  ['make -fother.mk test', { command: ['make', '-fother.mk', 'test'] }, { 'other.mk': MAKEFILE }, { path: 'other.mk', content: PLANTED_MAKEFILE }],
  ['make --file=other.mk test', { command: ['make', '--file=other.mk', 'test'] }, { 'other.mk': MAKEFILE }, { path: 'other.mk', content: PLANTED_MAKEFILE }],
  ['make --makefile=other.mk test', { command: ['make', '--makefile=other.mk', 'test'] }, { 'other.mk': MAKEFILE }, { path: 'other.mk', content: PLANTED_MAKEFILE }],
  ['make -C app -f x.mk test (the file read in app)', { command: ['make', '-C', 'app', '-f', 'x.mk', 'test'] }, { 'app/x.mk': MAKEFILE }, { path: 'app/x.mk', content: PLANTED_MAKEFILE }],
  ['make --directory=app test', { command: ['make', '--directory=app', 'test'] }, { 'app/Makefile': MAKEFILE }, { path: 'app/Makefile', content: PLANTED_MAKEFILE }],
  ['make test in cwd app', { command: ['make', 'test'], cwd: 'app' }, { 'app/Makefile': MAKEFILE }, { path: 'app/Makefile', content: PLANTED_MAKEFILE }],
];

async function serve(files: Record<string, string>): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'accept-edits', policy: { allowedCommandGlobs: ['npm *', 'make *'] } }, { files }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

const pwned = (gateway: ServedGateway): boolean => ['PWNED', 'a/PWNED', 'a/b/PWNED', 'app/PWNED', 'sub/PWNED', 'sub/deep/PWNED'].some((name) => existsSync(join(gateway.workspace, name)));

describe('attack: a runner reads its code another way than the card bound', () => {
  it.each(CASES)('%s: approved once, it runs what the card was shown, or nothing', async (_label, args, files, write) => {
    const { gateway, mcp } = await serve(files);
    const { card, result } = await approvedAfterRewrite(gateway, mcp, { name: 'run_command', arguments: args }, write);
    expect(pwned(gateway), `ran the rewritten code: ${text(result)} card: ${JSON.stringify(card.target)}`).toBe(false);
    expect(result.isError, text(result)).toBe(true);
  });
});

describe('attack: a runner selects every workspace member', () => {
  it.each([['--workspaces'], ['-ws']])('npm test %s: the card binds the members\' package.json', async (option) => {
    const { gateway, mcp } = await serve({ 'package.json': ROOT, 'a/package.json': PACKAGE });
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test', option] } });
    const card = await pendingApproval(gateway, 'run_command');
    expect(card.target?.command).toMatchObject({ code: { files: ['package.json', 'a/package.json'] } });
    expect(card.target?.command).not.toHaveProperty('code.members');
    await decide(gateway, card.id, 'reject');
    expect((await run).isError).toBe(true);
  });
});
