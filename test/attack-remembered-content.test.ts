import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { decide, decideIfAsked, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace, type ServedGateway } from './support/serve-gateway.js';

// A hostile model against an approval of a command that runs a file of the workspace: the person approves
// `bash run.sh` (having read run.sh, or written it), and the model then rewrites run.sh, with an edit the mode
// lets through or while the card is still open, so that the approval runs code nobody was shown. Each drives
// `toolgate serve` with the MCP SDK client and the console's API, and checks the end effect on disk.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();
const attackHome = useAttackHomes('toolgate-remembered-content-home');

async function start(workspace: string, home: string): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: home } }));
  const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
  return { gateway, mcp };
}

async function approved(at: { gateway: ServedGateway; mcp: Client }, name: string, args: Record<string, unknown>, decision: string): Promise<object> {
  const call = at.mcp.callTool({ name, arguments: args });
  await decide(at.gateway, (await pendingApproval(at.gateway, name)).id, decision);
  return call;
}

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
