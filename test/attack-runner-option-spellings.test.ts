import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { approvedAfterRewrite, decide, pendingApproval, rejectCutRunnerCard } from './support/pending-approval.js';
import { closeAfterEach, connectClient, servedForBlock, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { PACKAGE, pkg, PLANTED } from './support/runner-packages.js';

// npm reads its options as its parser does, not as they are spelled in its documentation: any number of leading
// dashes (`-prefix`, `---prefix`), a long option by a prefix of its name (`--prefi`), a short one after two dashes
// (`--C`, `--w`) or at the end of a cluster of short ones (`-sC`), and options after the script's name. It stops at
// any run of dashes alone (`---`), not only at `--`. Each spelling below moves npm to the folder whose package.json
// it runs; with two calls in flight through `toolgate serve` and the MCP SDK client in `accept-edits`, a second
// call rewrites that package.json while the card of the first waits.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

const CONFIG = { scope: 'workspace-write', mode: 'accept-edits', policy: { allowedCommandGlobs: ['npm *', 'pnpm *', 'yarn *', 'bun *'] } };
const ROOT = pkg('echo root tests', { workspaces: ['a'] });
const SUB = { 'package.json': ROOT, 'sub/package.json': PACKAGE, 'a/package.json': PACKAGE, 'x/notes.md': 'x\n' };
const sub = { path: 'sub/package.json', content: PLANTED };
const member = { path: 'a/package.json', content: PLANTED };
const root = { path: 'package.json', content: PLANTED };

type Case = readonly [label: string, run: { command: readonly string[]; cwd?: string }, write: { path: string; content: string }];
const CASES: readonly Case[] = [
  ['npm --prefi sub test (an abbreviation)', { command: ['npm', '--prefi', 'sub', 'test'] }, sub],
  ['npm --prefi=sub test', { command: ['npm', '--prefi=sub', 'test'] }, sub],
  ['npm test --prefi sub (after the script name)', { command: ['npm', 'test', '--prefi', 'sub'] }, sub],
  ['npm -prefix sub test (one dash)', { command: ['npm', '-prefix', 'sub', 'test'] }, sub],
  ['npm ---prefix sub test (three dashes)', { command: ['npm', '---prefix', 'sub', 'test'] }, sub],
  ['npm -prefi=sub test', { command: ['npm', '-prefi=sub', 'test'] }, sub],
  ['npm --C sub test (a short option after two dashes)', { command: ['npm', '--C', 'sub', 'test'] }, sub],
  ['npm --C=sub test', { command: ['npm', '--C=sub', 'test'] }, sub],
  ['npm -aC sub test (a cluster ending in -C)', { command: ['npm', '-aC', 'sub', 'test'] }, sub],
  ['npm -sC sub test', { command: ['npm', '-sC', 'sub', 'test'] }, sub],
  ['npm --w a test (a member, two dashes)', { command: ['npm', '--w', 'a', 'test'] }, member],
  ['npm --w=a test', { command: ['npm', '--w=a', 'test'] }, member],
  ['npm -Csub test in a folder with no package.json (npm reads no -C there, and climbs)', { command: ['npm', '-Csub', 'test'], cwd: 'x' }, root],
  ['npm --dir=sub test in a folder with no package.json (npm reads --dir as no folder, and climbs)', { command: ['npm', '--dir=sub', 'test'], cwd: 'x' }, root],
  ['npm --prefix ../sub --prefix= test in a folder with no package.json (the empty one is the folder npm runs in)', { command: ['npm', '--prefix', '../sub', '--prefix=', 'test'], cwd: 'x' }, { path: 'x/package.json', content: PLANTED }],
  ['npm test --- --prefix sub in a folder with no package.json (npm stops at ---, and climbs)', { command: ['npm', 'test', '---', '--prefix', 'sub'], cwd: 'x' }, root],
];

async function serve(files: Record<string, string>): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveGateway(CONFIG, { files }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

const pwned = (gateway: ServedGateway, folder: string): boolean =>
  ['PWNED', 'a/PWNED', 'sub/PWNED', 'x/PWNED', 'x/sub/PWNED'].some((name) => existsSync(join(gateway.workspace, name)) || existsSync(join(gateway.workspace, folder, name)));

/** `SUB` once for each case, in a folder of its own, so one gateway serves them all and no rewrite reaches another case. */
const inFolder = (folder: string): Record<string, string> => Object.fromEntries(Object.entries(SUB).map(([name, content]) => [`${folder}/${name}`, content]));

describe('attack: npm is moved to another package.json by a spelling its parser takes', () => {
  const folders = CASES.map((_case, index) => `case-${String(index)}`);
  const shared = servedForBlock(CONFIG, { files: Object.assign({}, ...folders.map(inFolder)) as Record<string, string> });
  it.each(CASES.map((entry, index) => [...entry, folders[index] as string] as const))('%s: approved once, it runs what the card was shown, or nothing', async (_label, args, write, folder) => {
    const { gateway, mcp } = shared();
    const run = { ...args, cwd: args.cwd === undefined ? folder : `${folder}/${args.cwd}` };
    const { card, result } = await approvedAfterRewrite(gateway, mcp, { name: 'run_command', arguments: run }, { ...write, path: `${folder}/${write.path}` });
    expect(pwned(gateway, folder), `ran the rewritten code: ${text(result)} card: ${JSON.stringify(card.target)}`).toBe(false);
    expect(result.isError, text(result)).toBe(true);
  });
});

describe('attack: a runner selects workspace members by something other than their folder', () => {
  // Each card is answered no: nothing changes, so the cases share one gateway.
  const shared = servedForBlock(CONFIG, { files: SUB });
  it.each([
    [['pnpm', '--filter', 'a', 'test']],
    [['pnpm', '-F', 'a', 'test']],
    [['pnpm', '-r', 'test']],
    [['pnpm', '--recursive', 'run', 'test']],
    [['yarn', 'workspace', 'demo', 'test']],
    [['yarn', 'workspaces', 'foreach', 'run', 'test']],
    [['bun', '--filter', 'a', 'test']],
    [['npm', '-w', '@s/a', 'test']],
  ])('%j: the card binds the package.json of every member the workspace names', async (command) => {
    const { gateway, mcp } = shared();
    const run = mcp.callTool({ name: 'run_command', arguments: { command } });
    const card = await pendingApproval(gateway, 'run_command');
    // pnpm takes its members from a pnpm-workspace.yaml, of which there is none: it selects none, and none is unbound.
    const members = command[0] === 'pnpm' ? [] : ['a/package.json'];
    expect(card.target?.command).toMatchObject({ code: { files: expect.arrayContaining(['package.json', ...members]) } });
    expect(card.target?.command).not.toHaveProperty('code.members');
    await decide(gateway, card.id, 'reject');
    expect((await run).isError).toBe(true);
  });
});

describe('attack: npm given thousands of spellings that may each move it', () => {
  // The time reading them takes is guarded in runner-code.test.ts, on a command ten times as long.
  it('each a folder of its own: the card lists a bounded number of files and says none is bound', async () => {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const folders = Array.from({ length: 1350 }, (_, index) => `-C${letters[index % 26] as string}${letters[Math.floor(index / 26) % 26] as string}${letters[Math.floor(index / 676)] as string}`);
    const command = `npm ${folders.join(' ')} test`;
    expect(command.length).toBeLessThanOrEqual(8192);
    const { gateway, mcp } = await serve(SUB);
    await rejectCutRunnerCard(gateway, mcp, { command });
  });
});
