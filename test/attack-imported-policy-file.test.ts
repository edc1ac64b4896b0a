import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { connectClient, makeWorkspace, serveGateway, serveWorkspace, type ServedGateway } from './support/serve-gateway.js';

// A hostile model against the policy file the operator imports: its deny rules load without a pin, so a model that
// rewrites the file drops them at the next start. The engine asks before a built-in tool or a command names the file,
// but a command a rule allows runs a script of the model's, which names it nowhere: the sandbox must hold the file as
// it holds every other protected file, or the next start reads the model's rules. Through `toolgate serve` and the SDK.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const SETTINGS = `${JSON.stringify({ permissions: { deny: ['Read(./secret.txt)'] } })}\n`;
/** A script that names the imported file only inside its own code, where no rule and no card reads it. */
const emptying = (path: string): string =>
  `import fs from 'node:fs';\ntry { fs.writeFileSync(${JSON.stringify(path)}, '{}\\n'); console.log('written'); } catch (error) { console.log('refused', error.code); }\n`;

function configImporting(path: string): object {
  return {
    scope: 'workspace-write',
    mode: 'auto',
    policy: { allowedCommandGlobs: ['node *'], allow: ['Bash(node:*)', 'Write(./tools/**)'], imports: [{ from: 'claude', path }] },
  };
}

/** Call `name`, which the rules settle: no card may come, since nobody is there to see what it does. */
async function settled(gateway: ServedGateway, mcp: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const { result, card } = await decideIfAsked(gateway, mcp, name, args, 'reject');
  expect(card, text(result)).toBeUndefined();
  return text(result);
}

describe.each(['config/claude-settings.json', 'config/team[prod].json', '.claude/settings.json'])('attack: a command a rule allows rewrites the imported policy file %s', (imported) => {
  it('the file keeps its deny, and the next start still refuses the read it denies', async () => {
    const files = { [imported]: SETTINGS, 'secret.txt': 'the user secret\n', 'tools/empty.mjs': emptying(imported) };
    let gateway = await serveGateway(configImporting(imported), { files });
    let mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
    try {
      expect(await settled(gateway, mcp, 'read_file', { path: 'secret.txt' })).toContain('Read(./secret.txt)');
      const ran = await settled(gateway, mcp, 'run_command', { command: ['node', 'tools/empty.mjs'] });
      expect(ran).toContain('"sandbox\\":\\"bwrap');
      expect(readFileSync(join(gateway.workspace, imported), 'utf8'), ran).toBe(SETTINGS);
      await mcp.close();
      await gateway.cli.stop();
      gateway = await serveWorkspace(gateway.workspace);
      mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
      const read = await settled(gateway, mcp, 'read_file', { path: 'secret.txt' });
      expect(read).not.toContain('the user secret');
      expect(read).toContain('Read(./secret.txt)');
    } finally {
      await mcp.close();
      await gateway.cli.stop();
    }
  }, 60_000);
});

describe('attack: in the full tier, a command a rule allows rewrites an imported policy file outside the workspace', () => {
  it.each(['team.json', 'team[prod].json'])('%s keeps its deny', async (name) => {
    const outside = mkdtempSync(join('/var/tmp', 'toolgate-imported-policy-'));
    const imported = join(outside, name);
    writeFileSync(imported, SETTINGS);
    const config = { ...configImporting(imported), scope: 'full' };
    const gateway = await serveGateway(config, { files: { 'secret.txt': 'the user secret\n', 'tools/empty.mjs': emptying(imported) } });
    const mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
    try {
      const ran = await settled(gateway, mcp, 'run_command', { command: ['node', 'tools/empty.mjs'] });
      expect(ran).toContain('"sandbox\\":\\"bwrap');
      expect(readFileSync(imported, 'utf8'), ran).toBe(SETTINGS);
    } finally {
      await mcp.close();
      await gateway.cli.stop();
    }
  }, 60_000);
});

describe('attack: a command a rule allows replaces the link the configuration imports by', () => {
  it('the link and the file it leads to keep the deny, and the next start still refuses the read it denies', async () => {
    const replace = `import fs from 'node:fs';\ntry { fs.unlinkSync('config/claude.json'); fs.writeFileSync('config/claude.json', '{}\\n'); console.log('replaced'); } catch (error) { console.log('refused', error.code); }\n`;
    const workspace = makeWorkspace(configImporting('config/claude.json'), { 'config/team.json': SETTINGS, 'secret.txt': 'the user secret\n', 'tools/replace.mjs': replace });
    symlinkSync('team.json', join(workspace, 'config/claude.json'));
    let gateway = await serveWorkspace(workspace);
    let mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
    try {
      const ran = await settled(gateway, mcp, 'run_command', { command: ['node', 'tools/replace.mjs'] });
      expect(readFileSync(join(workspace, 'config/claude.json'), 'utf8'), ran).toBe(SETTINGS);
      await mcp.close();
      await gateway.cli.stop();
      gateway = await serveWorkspace(workspace);
      mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
      expect(await settled(gateway, mcp, 'read_file', { path: 'secret.txt' })).toContain('Read(./secret.txt)');
    } finally {
      await mcp.close();
      await gateway.cli.stop();
    }
  }, 60_000);
});
