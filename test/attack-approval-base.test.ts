import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { decide, decideIfAsked, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// What a write's approval binds between the moment its card is shown and the moment the write runs, with two calls
// in flight through `toolgate serve`, the MCP SDK client and the console's API, in `ask`. A `write_file` card draws
// its diff against the file as it is when the card is shown; an `edit_file` card names the text it replaces. A
// second call, approved on its own card while the first waits, rewrites the file in place (`cp` keeps the file's
// inode), so the first write's folder and file are the same ones: what the person approved next is a change to a
// file they never saw. Each checks the end effect on disk.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

const NOTES = 'owner: alice\nretention: 30 days\n';
// The user's own version, saved in place while the card waits: the line the diff never showed is theirs.
const SAVED = 'owner: alice\nretention: 30 days\nlegal hold: case 2291, keep every record\n';
const WRITTEN = 'owner: alice\nretention: 7 days\n';
const PLANTED = 'debug: true\nverify_signatures: true\n';

async function serve(): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(
    await serveGateway({ scope: 'workspace-write', mode: 'ask', policy: { allowedCommandGlobs: ['cp *', 'mv *'] } }, { files: { 'notes.md': NOTES, 'saved.md': SAVED, 'config.yml': 'debug: true\n', 'planted.yml': PLANTED } }),
  );
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

/** Run `command` in the gateway on a card of its own, approved once, while another call's card waits. */
async function approvedCommand(gateway: ServedGateway, mcp: Client, command: readonly string[]): Promise<void> {
  const call = mcp.callTool({ name: 'run_command', arguments: { command } });
  await decide(gateway, (await pendingApproval(gateway, 'run_command')).id, 'once');
  expect((await call).isError, command.join(' ')).toBeFalsy();
}

describe('attack: a write lands on a file that changed under its card', () => {
  it('a write_file whose diff was drawn against the file before a second call rewrote it in place is refused, and the file keeps what that call wrote', async () => {
    const { gateway, mcp } = await serve();
    const notes = join(gateway.workspace, 'notes.md');
    const inode = statSync(notes).ino;
    const write = mcp.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: WRITTEN } });
    const card = await pendingApproval(gateway, 'write_file');
    // The card says: one line changes, retention 30 → 7 days. Nothing else is removed.
    expect(card.diff).toContain('-retention: 30 days');
    expect(card.diff).not.toContain('legal hold');

    await approvedCommand(gateway, mcp, ['cp', 'saved.md', 'notes.md']);
    expect(statSync(notes).ino, 'cp wrote in place').toBe(inode);
    expect(readFileSync(notes, 'utf8')).toBe(SAVED);

    await decide(gateway, card.id, 'once');
    const result = await write;
    expect(readFileSync(notes, 'utf8'), `the write removed a line its card never showed: ${text(result)}`).toBe(SAVED);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('target changed');
  });

  it('an edit_file approved to replace every occurrence is refused once a second call rewrote the file with more of them', async () => {
    const { gateway, mcp } = await serve();
    const config = join(gateway.workspace, 'config.yml');
    const edit = mcp.callTool({ name: 'edit_file', arguments: { path: 'config.yml', oldText: 'true', newText: 'false', replaceAll: true } });
    const card = await pendingApproval(gateway, 'edit_file');
    expect(card.view?.subtitle).toContain('replaceAll');

    // The second call's file holds the same setting, and a check the person never saw the edit turn off.
    await approvedCommand(gateway, mcp, ['cp', 'planted.yml', 'config.yml']);
    expect(readFileSync(config, 'utf8')).toBe(PLANTED);

    await decide(gateway, card.id, 'once');
    const result = await edit;
    expect(readFileSync(config, 'utf8'), `the edit ran on content its card never showed: ${text(result)}`).toBe(PLANTED);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('target changed');
  });
});

describe('attack: the folder a write lands in is swapped by a second call while its card waits', () => {
  it.each(['.github/workflows', 'a folder outside the workspace'])('held: a folder moved aside and replaced by a link to %s is refused at the write, and nothing lands there', async (where) => {
    const { gateway, mcp } = await serve();
    mkdirSync(join(gateway.workspace, 'drafts'));
    mkdirSync(join(gateway.workspace, '.github', 'workflows'), { recursive: true });
    const folder = where === '.github/workflows' ? join(gateway.workspace, '.github', 'workflows') : mkdtempSync(join(tmpdir(), 'toolgate-outside-'));
    const write = mcp.callTool({ name: 'write_file', arguments: { path: 'drafts/ci.yml', content: 'on: push\njobs: {}\n' } });
    const card = await pendingApproval(gateway, 'write_file');
    expect(card.target?.files[0]).toMatchObject({ path: 'drafts/ci.yml', flags: ['new'] });
    // The second call moves the folder aside; the link in its place is made as any other process of the user's would.
    await approvedCommand(gateway, mcp, ['mv', 'drafts', 'drafts.old']);
    symlinkSync(folder, join(gateway.workspace, 'drafts'));
    await decide(gateway, card.id, 'once');
    const result = await write;
    expect(result.isError, text(result)).toBe(true);
    expect(existsSync(join(folder, 'ci.yml'))).toBe(false);
  });
});

describe('attack: a session approval of a write stretched to another file or tool', () => {
  it('held: write_file of café.md approved for the session asks again for the same name decomposed (another file), and for edit_file of it', async () => {
    const { gateway, mcp } = await serve();
    const first = mcp.callTool({ name: 'write_file', arguments: { path: 'caf\u00e9.md', content: 'one\n' } });
    await decide(gateway, (await pendingApproval(gateway, 'write_file')).id, 'session');
    expect((await first).isError).toBeFalsy();
    const same = await decideIfAsked(gateway, mcp, 'write_file', { path: 'caf\u00e9.md', content: 'two\n' }, 'reject');
    expect(same.card).toBeUndefined();
    const decomposed = await decideIfAsked(gateway, mcp, 'write_file', { path: 'cafe\u0301.md', content: 'two\n' }, 'reject');
    expect(decomposed.card, text(decomposed.result)).toBeDefined();
    expect(existsSync(join(gateway.workspace, 'cafe\u0301.md'))).toBe(false);
    const edited = await decideIfAsked(gateway, mcp, 'edit_file', { path: 'caf\u00e9.md', oldText: 'two', newText: 'three' }, 'reject');
    expect(edited.card, text(edited.result)).toBeDefined();
    expect(readFileSync(join(gateway.workspace, 'caf\u00e9.md'), 'utf8')).toBe('two\n');
  });
});
