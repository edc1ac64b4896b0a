import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideIfAsked, type Pending } from './support/pending-approval.js';
import { connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// A hostile model against the resolved action as it is built around the host's answer: other spellings of a
// protected file (`./`, doubled separators, a trailing slash, a case change, `..` through a linked folder), links
// and hard links to toolgate's own state and to files only the policy protects, and commands whose working
// directory is not a string. Each drives `toolgate serve` with the MCP SDK client and checks the end effect: a
// refused call, or a card that shows the real path as protected, rejected, and the protected file as it was.

const SECRET = 'TOOLGATE_RESOLVED_SECRET=hunter2';
const PAYLOAD = '[core]\n\tfsmonitor = "touch PWNED"\n';
const RULES = ['cat *', 'cp *', 'touch *'];

let gateway: ServedGateway;
let mcp: Client;

beforeAll(async () => {
  gateway = await serveGateway(
    { scope: 'workspace-write', mode: 'auto', policy: { protectedPaths: ['secrets/**'], allowedCommandGlobs: RULES, allow: [...RULES.map((rule) => `Bash(${rule})`), 'Write', 'Edit'] } },
    { files: { '.env': `${SECRET}\n`, 'notes.md': 'first\n', 'payload.txt': PAYLOAD } },
  );
  const workspace = gateway.workspace;
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  mkdirSync(join(workspace, 'secrets'));
  writeFileSync(join(workspace, 'secrets', 'key.txt'), `${SECRET}\n`);
  mkdirSync(join(workspace, 'a', 'b', 'c'), { recursive: true });
  symlinkSync('a/b/c', join(workspace, 'deep'));
  symlinkSync('.git/hooks', join(workspace, 'hooks'));
  symlinkSync('.toolgate', join(workspace, 'state'));
  symlinkSync('toolgate.config.json', join(workspace, 'settings.json'));
  symlinkSync('secrets/key.txt', join(workspace, 'key.txt'));
  linkSync(join(workspace, 'secrets', 'key.txt'), join(workspace, 'key-copy.txt'));
  linkSync(join(workspace, 'toolgate.config.json'), join(workspace, 'config-copy.json'));
  mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
}, 30_000);

afterAll(async () => {
  await mcp?.close();
  await gateway?.cli.stop();
});

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

/** Every protected file the attacks aim at, as it is now. */
function protectedFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of ['.git/config', '.env', 'secrets/key.txt', 'toolgate.config.json']) files[file] = readFileSync(join(gateway.workspace, file), 'utf8');
  // The journal's anchor moves with every call: what matters is that nothing else was written into it.
  files['.toolgate/journal.anchor'] = readFileSync(join(gateway.workspace, '.toolgate', 'journal.anchor'), 'utf8').includes('fsmonitor') ? 'written' : 'the journal';
  return files;
}

/** Call `name` and, if it raises a card, reject it. */
const attempt = (name: string, args: Record<string, unknown>): Promise<{ result: object; card: Pending | undefined }> => decideIfAsked(gateway, mcp, name, args, 'reject');

describe('attack: another spelling of a protected file, through the built-in file tools', () => {
  // What each spelling meets: a card naming the real path, a refusal before anyone is asked (toolgate's own state
  // and config are never written by a tool), or, for a file target folded before it is opened, the ordinary file
  // its folded spelling names.
  it.each([
    ['./.git/config', { card: '.git/config' }],
    ['.git//config', { card: '.git/config' }],
    ['.git/./config', { card: '.git/config' }],
    ['.git/hooks/../config', { card: '.git/config' }],
    ['.git/config/', { card: undefined }],
    ['.GIT/config', { card: undefined }],
    ['key.txt', { card: 'secrets/key.txt' }],
    ['./secrets//key.txt', { card: 'secrets/key.txt' }],
    ['deep/../../../.env', { refused: 'the path climbs out of the workspace' }],
    ['state/journal.anchor', { refused: 'the path is protected' }],
    ['settings.json', { refused: 'the path is protected' }],
    ['hooks/../config', { ordinary: 'config' }],
  ] as const)('held: a write or an edit of %s never changes a protected file without a person who sees where it really leads', async (path, meets) => {
    const before = protectedFiles();
    for (const [name, args] of [
      ['write_file', { path, content: PAYLOAD }],
      ['edit_file', { path, oldText: 'fsmonitor', newText: 'fsmonitor2' }],
    ] as const) {
      const { result, card } = await attempt(name, args);
      if ('card' in meets) {
        expect(card?.reasons.protectedPath, `${name} ${path}`).toBe(true);
        if (meets.card !== undefined) expect(card?.target?.files[0]?.path, `${name} ${path}`).toBe(meets.card);
        expect(result, `${name} ${path}`).toMatchObject({ isError: true });
      } else if ('refused' in meets) {
        expect(card, `${name} ${path}`).toBeUndefined();
        expect(text(result), `${name} ${path}`).toContain(meets.refused);
      } else {
        expect(card, `${name} ${path}`).toBeUndefined();
        expect(readFileSync(join(gateway.workspace, meets.ordinary), 'utf8'), `${name} ${path}`).toContain('fsmonitor');
      }
      expect(protectedFiles(), `${name} ${path}`).toEqual(before);
    }
  });

  it.each([
    ['key-copy.txt', 'hunter2'],
    ['config-copy.json', 'auto'],
  ])('held: a hard link %s to a file only the policy protects is never written through, even approved', async (path, present) => {
    const before = protectedFiles();
    for (const [name, args] of [
      ['write_file', { path, content: PAYLOAD }],
      ['edit_file', { path, oldText: present, newText: 'fsmonitor' }],
    ] as const) {
      const { result, card } = await decideIfAsked(gateway, mcp, name, args, 'once');
      expect(card?.reasons.protectedPath, `${name} ${path}`).toBe(true);
      expect(text(result), `${name} ${path}`).toContain('never written through');
      expect(protectedFiles(), `${name} ${path}`).toEqual(before);
    }
  });

  it.each(['./.env', '.env/', 'deep/../../../.env', 'key.txt', './secrets/key.txt', 'settings.json'])('held: a read of %s returns nothing protected without a person', async (path) => {
    const { result, card } = await attempt('read_file', { path });
    if (card !== undefined) expect(card.reasons.protectedPath, path).toBe(true);
    expect(text(result), path).not.toContain('hunter2');
  });
});

describe('attack: a command naming a protected file another way, or run somewhere it was not judged', () => {
  it.each([
    [['cat', '.git/../.git/config']],
    [['cat', './.git//config']],
    [['cat', 'hooks/../config']],
    [['cat', 'deep/../../../.env']],
    [['cat', 'key.txt']],
    [['cat', '--', 'settings.json']],
    [['cp', 'payload.txt', 'hooks/../config']],
    [['cp', 'payload.txt', 'state/journal.anchor']],
    [['cp', 'payload.txt', 'settings.json']],
    [['sh', '-c', 'cp payload.txt .git/config']],
  ] as const)('held: %j reads or changes nothing protected without a person', async (command) => {
    const before = protectedFiles();
    const { result, card } = await attempt('run_command', { command });
    if (card !== undefined) expect(card.reasons.protectedPath, command.join(' ')).toBe(true);
    expect(text(result), command.join(' ')).not.toContain('hunter2');
    expect(text(result), command.join(' ')).not.toContain('repositoryformatversion');
    expect(protectedFiles(), command.join(' ')).toEqual(before);
  });

  it('held: a command naming more paths than the host resolves asks a person even when none is protected, and runs nothing refused', async () => {
    const { result, card } = await attempt('run_command', { command: ['cat', ...Array.from({ length: 65 }, () => 'notes.md')] });
    expect(card?.reasons.protectedPath).toBe(true);
    expect(result).toMatchObject({ isError: true });
    expect(text(result)).not.toContain('first');
  });

  it.each([5, ['.git'], { path: '.git' }, ''])('held: a working directory of %j is refused and nothing runs', async (cwd) => {
    const before = protectedFiles();
    const { result, card } = await attempt('run_command', { command: ['touch', 'ran'], cwd });
    expect(card, JSON.stringify(cwd)).toBeUndefined();
    expect(result, JSON.stringify(cwd)).toMatchObject({ isError: true });
    for (const folder of ['', '.git']) expect(existsSync(join(gateway.workspace, folder, 'ran')), JSON.stringify(cwd)).toBe(false);
    expect(protectedFiles(), JSON.stringify(cwd)).toEqual(before);
  });

  it('an ordinary command under the same rules runs at once', async () => {
    expect(text(await mcp.callTool({ name: 'run_command', arguments: { command: ['cat', 'notes.md'] } }))).toContain('first');
  });
});
