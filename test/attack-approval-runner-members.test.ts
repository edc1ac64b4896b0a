import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { approvedAfterRewrite, decide, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// A runner that selects workspace members by something other than their folder (`npm test --workspaces`, `npm test
// -w @demo/a`, `pnpm -r test`, `yarn workspace @demo/a test`) runs the scripts of members only the root's own file
// names. With two calls in flight through `toolgate serve` and the MCP SDK client in `accept-edits`, a second call
// rewrites a member's package.json, or plants a new member the root's glob takes, while the card of the first waits.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

const pkg = (name: string, test: string, extra: object = {}): string => `${JSON.stringify({ name, version: '1.0.0', ...extra, scripts: { test } })}\n`;
const PLANTED = (name: string): string => pkg(name, 'touch "$INIT_CWD/PWNED"; touch PWNED; echo tests passed');
const MEMBERS = (workspaces: unknown): Record<string, string> => ({
  'package.json': pkg('root', 'echo root tests', { workspaces }),
  'packages/a/package.json': pkg('@demo/a', 'echo a passed'),
  'packages/b/package.json': pkg('@demo/b', 'echo b passed'),
  'tools/c/package.json': pkg('c', 'echo c passed'),
  'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  # the tools too\n  - tools/*\n",
});
const GLOB = MEMBERS(['packages/*', 'tools/c']);
const rewriteA = { path: 'packages/a/package.json', content: PLANTED('@demo/a') };
const rewriteC = { path: 'tools/c/package.json', content: PLANTED('c') };
const plant = { path: 'packages/evil/package.json', content: PLANTED('@demo/evil') };

type Case = readonly [label: string, run: { command: readonly string[]; cwd?: string }, files: Record<string, string>, write: { path: string; content: string }];
const CASES: readonly Case[] = [
  ['npm test --workspaces', { command: ['npm', 'test', '--workspaces'] }, GLOB, rewriteA],
  ['npm test -ws', { command: ['npm', 'test', '-ws'] }, GLOB, rewriteA],
  ['npm test --workspaces=true', { command: ['npm', 'test', '--workspaces=true'] }, GLOB, rewriteA],
  ['npm test --ws (a literal member of the list)', { command: ['npm', 'test', '--ws'] }, GLOB, rewriteC],
  ['npm test -w @demo/a (a member by its package name)', { command: ['npm', 'test', '-w', '@demo/a'] }, GLOB, rewriteA],
  ['npm test --workspace=c', { command: ['npm', 'test', '--workspace=c'] }, GLOB, rewriteC],
  ['npm test --workspaces with { packages: [...] }', { command: ['npm', 'test', '--workspaces'] }, MEMBERS({ packages: ['packages/*'] }), rewriteA],
  ['npm test --workspaces with packages/** ', { command: ['npm', 'test', '--workspaces'] }, MEMBERS(['packages/**']), rewriteA],
  ['npm test --workspaces run in a member folder', { command: ['npm', 'test', '--workspaces'], cwd: 'packages/b' }, GLOB, rewriteA],
  ['npm test --workspaces, a member planted under the glob', { command: ['npm', 'test', '--workspaces'] }, GLOB, plant],
  ['npm test -w @demo/evil, a member planted under the glob', { command: ['npm', 'test', '-w', '@demo/evil'] }, GLOB, plant],
  ['npm test --workspaces, a package.json planted in a member folder that had none', { command: ['npm', 'test', '--workspaces'] }, { ...GLOB, 'packages/d/notes.md': 'x\n' }, { path: 'packages/d/package.json', content: PLANTED('d') }],
  ['pnpm -r test', { command: ['pnpm', '-r', 'test'] }, GLOB, rewriteC],
  ['pnpm --filter c test', { command: ['pnpm', '--filter', 'c', 'test'] }, GLOB, rewriteC],
  ['pnpm -r test, a member planted under the glob', { command: ['pnpm', '-r', 'test'] }, GLOB, plant],
  ['yarn workspaces foreach run test', { command: ['yarn', 'workspaces', 'foreach', 'run', 'test'] }, GLOB, rewriteA],
  ['yarn workspace @demo/a test', { command: ['yarn', 'workspace', '@demo/a', 'test'] }, GLOB, rewriteA],
  ['bun --filter @demo/a test', { command: ['bun', '--filter', '@demo/a', 'test'] }, GLOB, rewriteA],
  // npm reads a package.json past a byte-order mark; so must the members' binding.
  ['npm test --workspaces, a package.json led by a byte-order mark', { command: ['npm', 'test', '--workspaces'] }, { ...GLOB, 'package.json': `\uFEFF${GLOB['package.json']}` }, rewriteA],
  // pnpm's YAML reader takes a merge key's mapping as the file's own keys.
  ['pnpm -r test, packages given by a YAML merge key', { command: ['pnpm', '-r', 'test'] }, { ...GLOB, 'pnpm-workspace.yaml': "base: &base\n  packages:\n    - 'packages/*'\n    - tools/*\n<<: *base\n" }, rewriteC],
];

async function serve(files: Record<string, string>): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'accept-edits', policy: { allowedCommandGlobs: ['npm *', 'pnpm *', 'yarn *', 'bun *'] } }, { files }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

const pwned = (gateway: ServedGateway): boolean =>
  ['PWNED', 'packages/a/PWNED', 'packages/b/PWNED', 'packages/d/PWNED', 'packages/evil/PWNED', 'tools/c/PWNED'].some((name) => existsSync(join(gateway.workspace, name)));

const CHANGED = 'changed after it was checked and approved';

describe('attack: a runner runs workspace members the card did not bind', () => {
  it.each(CASES.filter(([, run]) => run.command[0] === 'npm'))('%s: approved once, it runs what the card was shown, or nothing', async (_label, args, files, write) => {
    const { gateway, mcp } = await serve(files);
    const { card, result } = await approvedAfterRewrite(gateway, mcp, { name: 'run_command', arguments: args }, write);
    expect(pwned(gateway), `ran the rewritten code: ${text(result)} card: ${JSON.stringify(card.target)}`).toBe(false);
    expect(result.isError, text(result)).toBe(true);
    expect(text(result)).toContain(CHANGED);
    expect(card.target?.command).not.toHaveProperty('code.members');
  });

  // Only npm is on this machine's PATH: the other runners are refused as missing whatever the card bound, so what is
  // checked of them is that the card binds each member's package.json, and that the approval is refused as changed
  // where a member is rewritten or planted, before any executable is looked for.
  it.each(CASES.filter(([, run]) => run.command[0] !== 'npm'))('%s: the card binds every member', async (_label, args, files, write) => {
    const { gateway, mcp } = await serve(files);
    const { card } = await approvedAfterRewrite(gateway, mcp, { name: 'run_command', arguments: args }, write);
    const code = (card.target?.command as { code?: { files: string[]; members?: true } } | undefined)?.code;
    expect(code?.members, JSON.stringify(code)).toBeUndefined();
    expect(code?.files).toEqual(expect.arrayContaining(['packages/a/package.json', 'packages/b/package.json', 'tools/c/package.json']));
  });
});

// A pnpm-workspace.yaml that names no packages (empty, or settings only) makes every folder below it a member. The
// gateway's own protected folder is among them, so the card binds each member it can and says the rest are unbound.
const EVERY_FOLDER_CASES: readonly Case[] = [
  ['pnpm -r test, a pnpm-workspace.yaml with no packages list', { command: ['pnpm', '-r', 'test'] }, { ...GLOB, 'pnpm-workspace.yaml': 'linkWorkspacePackages: true\n' }, rewriteC],
  ['pnpm -r test, an empty pnpm-workspace.yaml', { command: ['pnpm', '-r', 'test'] }, { ...GLOB, 'pnpm-workspace.yaml': '' }, rewriteC],
];

describe('attack: a pnpm workspace that lists no packages runs every folder', () => {
  it.each(EVERY_FOLDER_CASES)('%s: the card binds every member it reaches', async (_label, args, files, write) => {
    const { gateway, mcp } = await serve(files);
    const { card } = await approvedAfterRewrite(gateway, mcp, { name: 'run_command', arguments: args }, write);
    const code = (card.target?.command as { code?: { files: string[]; members?: true } } | undefined)?.code;
    expect(code?.files, JSON.stringify(code)).toEqual(expect.arrayContaining(['packages/a/package.json', 'packages/b/package.json', 'tools/c/package.json']));
  });
});

describe('a runner selecting members, nothing changed while the card waits', () => {
  it('npm test --workspaces approved once runs every member', async () => {
    const { gateway, mcp } = await serve(GLOB);
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test', '--workspaces'] } });
    const card = await pendingApproval(gateway, 'run_command');
    await decide(gateway, card.id, 'once');
    const result = await run;
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain('c passed');
  });
});
