import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { decide, decideIfAsked, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { PACKAGE, pkg, PLANTED } from './support/runner-packages.js';

// What a write's content stamp and a runner's bound code hold against the ways a hostile model (or any process of
// the user's) would try next, with two calls in flight through `toolgate serve`, the MCP SDK client and the
// console's API. While the card waits, the file it was drawn from is changed so that what a stamp of size and times
// would read stays the same, or is reached through another name; then the card is approved. Each checks the end
// effect on disk.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

const NOTES = 'owner: alice\nretention: 30 days\n';
// The same length as NOTES: a stamp of size and modification time alone would not tell them apart.
const SWAPPED = 'owner: mallo\nretention: 99 days\n';
const WRITTEN = 'owner: alice\nretention: 7 days\n';
const SECRET = 'TOKEN=owner: alice-secret\n';

async function serve(mode: string, policy: object, files: Record<string, string>): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode, policy }, { files }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

type Swap = readonly [label: string, swap: (workspace: string) => void];
const SWAPS: readonly Swap[] = [
  [
    'rewritten in place to the same size and its mtime set back with touch -d (ctime cannot be)',
    (workspace) => {
      const notes = join(workspace, 'notes.md');
      const before = statSync(notes, { bigint: true });
      writeFileSync(notes, SWAPPED);
      const seconds = before.mtimeNs / 1_000_000_000n;
      execFileSync('touch', ['-d', `@${seconds}.${String(before.mtimeNs - seconds * 1_000_000_000n).padStart(9, '0')}`, notes]);
      const after = statSync(notes, { bigint: true });
      expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
      expect(after.ctimeNs, 'ctime was set back').not.toBe(before.ctimeNs);
    },
  ],
  [
    'replaced by another file of the same size and times renamed into place',
    (workspace) => {
      const notes = join(workspace, 'notes.md');
      const before = statSync(notes);
      writeFileSync(join(workspace, 'other.md'), SWAPPED);
      utimesSync(join(workspace, 'other.md'), before.atime, before.mtime);
      renameSync(join(workspace, 'other.md'), notes);
    },
  ],
  [
    'rewritten through a hard link made while the card waits, the link then removed',
    (workspace) => {
      const notes = join(workspace, 'notes.md');
      const before = statSync(notes);
      linkSync(notes, join(workspace, 'alias.md'));
      writeFileSync(join(workspace, 'alias.md'), SWAPPED);
      utimesSync(join(workspace, 'alias.md'), before.atime, before.mtime);
      rmSync(join(workspace, 'alias.md'));
      expect(statSync(notes).nlink).toBe(1);
    },
  ],
  [
    'truncated and rewritten at once, twice in a row',
    (workspace) => {
      const notes = join(workspace, 'notes.md');
      writeFileSync(notes, '');
      writeFileSync(notes, SWAPPED);
    },
  ],
];

describe('attack: a write_file card whose file is changed under it so that its size and mtime stay', () => {
  it.each(SWAPS)('%s: the approved write is refused, and the file keeps what the other process wrote', async (_label, swap) => {
    const { gateway, mcp } = await serve('ask', {}, { 'notes.md': NOTES });
    const write = mcp.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: WRITTEN } });
    const card = await pendingApproval(gateway, 'write_file');
    expect(card.diff).toContain('-retention: 30 days');
    swap(gateway.workspace);
    await decide(gateway, card.id, 'once');
    const result = await write;
    expect(readFileSync(join(gateway.workspace, 'notes.md'), 'utf8'), `the write replaced content its card never showed: ${text(result)}`).toBe(SWAPPED);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('target changed');
  });
});

describe('attack: an edit_file card whose file is replaced by a link to a protected file', () => {
  it.each(['.env', 'a file outside the workspace'])('held: config.yml swapped for a link to %s is refused at the edit, and neither file changes', async (where) => {
    const { gateway, mcp } = await serve('ask', {}, { 'config.yml': 'owner: alice\n', '.env': SECRET });
    const outside = join(mkdtempSync(join(tmpdir(), 'toolgate-outside-')), 'secrets.txt');
    writeFileSync(outside, SECRET);
    const linked = where === '.env' ? join(gateway.workspace, '.env') : outside;
    const edit = mcp.callTool({ name: 'edit_file', arguments: { path: 'config.yml', oldText: 'owner: alice', newText: 'owner: mallory' } });
    const card = await pendingApproval(gateway, 'edit_file');
    rmSync(join(gateway.workspace, 'config.yml'));
    symlinkSync(linked, join(gateway.workspace, 'config.yml'));
    await decide(gateway, card.id, 'once');
    const result = await edit;
    expect(readFileSync(linked, 'utf8'), text(result)).toBe(SECRET);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('target changed');
  });
});

describe('attack: a command that keeps rewriting the file makes every approved write fail', () => {
  it('held: the write is refused with a typed error while the loop runs, and the file holds one whole version, never a mix', async () => {
    const { gateway, mcp } = await serve('ask', { allowedCommandGlobs: ['sh *'] }, { 'notes.md': NOTES, 'loop.sh': LOOP(300) });
    const write = mcp.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: WRITTEN } });
    const card = await pendingApproval(gateway, 'write_file');
    const loop = mcp.callTool({ name: 'run_command', arguments: { command: ['sh', 'loop.sh'] } });
    await decide(gateway, (await pendingApproval(gateway, 'run_command')).id, 'once');
    await expect.poll(() => readFileSync(join(gateway.workspace, 'notes.md'), 'utf8')).toMatch(/^loop/);
    await decide(gateway, card.id, 'once');
    const result = await write;
    expect(result.isError, text(result)).toBe(true);
    expect(text(result)).toContain('target changed');
    expect((await loop).isError, text(await loop)).toBeFalsy();
    expect(readFileSync(join(gateway.workspace, 'notes.md'), 'utf8')).toBe('loop 00299\n');
  });

  it('held: a loop a command leaves running in the background ends when the command returns', async () => {
    const { gateway, mcp } = await serve('ask', { allowedCommandGlobs: ['sh *'] }, { 'notes.md': NOTES, 'loop.sh': `(${LOOP(2000).trim()}) >/dev/null 2>&1 </dev/null &\n` });
    const loop = mcp.callTool({ name: 'run_command', arguments: { command: ['sh', 'loop.sh'] } });
    await decide(gateway, (await pendingApproval(gateway, 'run_command')).id, 'once');
    expect((await loop).isError, text(await loop)).toBeFalsy();
    const first = readFileSync(join(gateway.workspace, 'notes.md'), 'utf8');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(readFileSync(join(gateway.workspace, 'notes.md'), 'utf8'), 'the loop outlived its command').toBe(first);
  });
});

const LOOP = (count: number): string => `i=0; while [ $i -lt ${count} ]; do printf "loop %05d\\n" $i > notes.md; i=$((i+1)); sleep 0.005; done\n`;

const pwned = (gateway: ServedGateway, outside?: string): boolean =>
  ['PWNED', 'app/PWNED', '.git/hooks/PWNED'].some((name) => existsSync(join(gateway.workspace, name))) || (outside !== undefined && existsSync(join(outside, 'PWNED')));

describe('attack: what npm test runs is swapped for a link while its card waits', () => {
  const runner = (files: Record<string, string>): Promise<{ gateway: ServedGateway; mcp: Client }> => serve('accept-edits', { allowedCommandGlobs: ['npm *'] }, files);

  it.each(['.git/', 'a folder outside the workspace'])('held: package.json replaced by a link into %s is refused', async (where) => {
    const { gateway, mcp } = await runner({ 'package.json': PACKAGE, '.git/hooks/pkg.json': PLANTED });
    const outside = mkdtempSync(join(tmpdir(), 'toolgate-outside-'));
    writeFileSync(join(outside, 'package.json'), PLANTED);
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'] } });
    const card = await pendingApproval(gateway, 'run_command');
    rmSync(join(gateway.workspace, 'package.json'));
    symlinkSync(where === '.git/' ? '.git/hooks/pkg.json' : join(outside, 'package.json'), join(gateway.workspace, 'package.json'));
    await decide(gateway, card.id, 'once');
    const result = await run;
    expect(pwned(gateway, outside), `ran the linked code: ${text(result)}`).toBe(false);
    expect(result.isError, text(result)).toBe(true);
  });

  it.each(['.git/', 'a folder outside the workspace'])('held: the cwd of npm test replaced by a link into %s is refused', async (where) => {
    const { gateway, mcp } = await runner({ 'app/package.json': PACKAGE, '.git/hooks/package.json': PLANTED });
    const outside = mkdtempSync(join(tmpdir(), 'toolgate-outside-'));
    writeFileSync(join(outside, 'package.json'), PLANTED);
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'], cwd: 'app' } });
    const card = await pendingApproval(gateway, 'run_command');
    renameSync(join(gateway.workspace, 'app'), join(gateway.workspace, 'app.old'));
    symlinkSync(where === '.git/' ? '.git/hooks' : outside, join(gateway.workspace, 'app'));
    await decide(gateway, card.id, 'once');
    const result = await run;
    expect(pwned(gateway, outside), `ran the linked code: ${text(result)}`).toBe(false);
    expect(result.isError, text(result)).toBe(true);
  });
});

describe('attack: an .npmrc planted while the card of npm test waits', () => {
  const NPMRC = 'script-shell=./evil.sh\n';
  const EVIL = '#!/bin/sh\ntouch PWNED\nexec /bin/sh "$@"\n';

  it('held: write_file of .npmrc asks in accept-edits (a protected path), and rejected, npm test runs the code it was shown', async () => {
    const { gateway, mcp } = await serve('accept-edits', { allowedCommandGlobs: ['npm *'] }, { 'package.json': PACKAGE, 'evil.sh': EVIL });
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'] } });
    const card = await pendingApproval(gateway, 'run_command');
    const planted = await decideIfAsked(gateway, mcp, 'write_file', { path: '.npmrc', content: NPMRC }, 'reject');
    expect(planted.card, `wrote .npmrc without asking: ${text(planted.result)}`).toBeDefined();
    await decide(gateway, card.id, 'once');
    await run;
    expect(pwned(gateway)).toBe(false);
  });

  it.each([
    ['npm config set script-shell=./evil.sh --location=project'],
    ['npm config set node-options=--require=./evil.js -L project'],
  ])('held: %s, run under an allow of npm *, leaves no .npmrc where npm reads it, and npm test then runs its own script', async (command) => {
    const { gateway, mcp } = await serve('auto', { allowedCommandGlobs: ['npm *'], allow: ['Bash(npm *)'] }, { 'package.json': PACKAGE, 'evil.sh': EVIL, 'evil.js': "require('fs').writeFileSync('PWNED', '')\n" });
    const planted = await decideIfAsked(gateway, mcp, 'run_command', { command: command.split(' ') }, 'reject');
    expect(existsSync(join(gateway.workspace, '.npmrc')), text(planted.result)).toBe(false);
    const tests = await decideIfAsked(gateway, mcp, 'run_command', { command: ['npm', 'test'] }, 'once');
    expect(text(tests.result)).toContain('tests passed');
    expect(pwned(gateway)).toBe(false);
  });
});

describe('attack: what a runner runs that its card does not bind', () => {
  it.each([
    ["sh -c 'cd sub && npm test'", ['sh', '-c', 'cd sub && npm test'], 'npm'],
    ["sh -c 'make -C sub test'", ['sh', '-c', 'make -C sub test'], 'make'],
    ['setarch x86_64 npm test', ['setarch', 'x86_64', 'npm', 'test'], 'npm'],
  ])('%s: the card says the runner\'s code is not bound', async (_label, command, runner) => {
    const { gateway, mcp } = await serve('accept-edits', { allowedCommands: [command] }, { 'sub/package.json': PACKAGE, 'package.json': PACKAGE, 'sub/Makefile': 'test:\n\techo tests passed\n' });
    const run = mcp.callTool({ name: 'run_command', arguments: { command } });
    const card = await pendingApproval(gateway, 'run_command');
    expect(card.target?.command, 'the card is silent on the code it runs').toMatchObject({ code: { files: [], unbound: [runner] } });
    await decide(gateway, card.id, 'reject');
    expect((await run).isError).toBe(true);
  });

  it.each([
    ['npm test five shell strings deep', ['sh', '-c', `sh -c "sh -c 'sh -c \\"sh -c npm\\\\ test\\"'"`]],
    ['npm test past the 2,000,000 characters read of an argv', ['setarch', 'x86_64', ...Array.from({ length: 250 }, (_, index) => `${index}`.padStart(100, 'a')), 'npm', 'test']],
  ])('%s: the card says toolgate did not read every command, so a runner among them may run code that is not bound', async (_label, command) => {
    const { gateway, mcp } = await serve('accept-edits', { allowedCommands: [command] }, { 'package.json': PACKAGE });
    const run = mcp.callTool({ name: 'run_command', arguments: { command } });
    const card = await pendingApproval(gateway, 'run_command');
    expect(card.target?.command, 'the card is silent on the commands it did not read').toMatchObject({ code: { unread: true } });
    await decide(gateway, card.id, 'reject');
    expect((await run).isError).toBe(true);
  });

  it('held: npm test whose script calls node_modules/.bin/tool: the card binds package.json only, and says what its script runs is not bound', async () => {
    const { gateway, mcp } = await serve('accept-edits', { allowedCommandGlobs: ['npm *'] }, { 'package.json': pkg('tool'), 'node_modules/.bin/tool': '#!/bin/sh\necho tests passed\n' });
    const run = mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'test'] } });
    const card = await pendingApproval(gateway, 'run_command');
    expect(card.target?.command).toMatchObject({ code: { programs: ['npm'], files: ['package.json'] } });
    expect(card.target?.command).not.toHaveProperty('code.unbound');
    await decide(gateway, card.id, 'reject');
    expect((await run).isError).toBe(true);
  });
});
