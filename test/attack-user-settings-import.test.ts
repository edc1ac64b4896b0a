import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

/*
 * An operator imports their own Claude Code user settings (`~/.claude/settings.json`), pinned under
 * `policy.imports`. In user settings Claude Code reads `/path` under the settings file's folder, `~/.claude/`:
 * `Edit(/agents/**)` lets Claude edit the user's subagents in `~/.claude/agents/`, `Edit(/CLAUDE.md)` the user's
 * memory file. The gateway and `toolgate policy import` read every file as a project's, so the rules became
 * `Edit(./agents/**)` and `Edit(./CLAUDE.md)`: in auto mode a model's `write_file agents/reviewer.md` or
 * `write_file CLAUDE.md` in the workspace ran with nobody asked, which Claude Code with these settings asks for.
 * Now a file whose real path is the user's own settings, under the HOME the gateway runs with, is imported as
 * user settings by both: its `/path` rules name `~/.claude/`, and the workspace writes ask.
 */

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');
const SETTINGS = `${JSON.stringify({ permissions: { allow: ['Edit(/agents/**)', 'Edit(/CLAUDE.md)'] } })}\n`;

describe("attack: the user's own Claude Code settings imported as a project's", () => {
  const home = mkdtempSync('/var/tmp/toolgate-attack-user-settings-home-');
  const userSettings = join(home, '.claude', 'settings.json');
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(userSettings, SETTINGS);
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    gateway = await serveGateway(
      { scope: 'workspace-write', mode: 'auto', policy: { imports: [{ from: 'claude', path: userSettings, sha256: sha256(SETTINGS) }] } },
      { args: ['--no-console'], env: { HOME: home } },
    );
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    await mcp?.close();
    await gateway?.cli.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('policy import reads /agents/** where Claude Code does, in ~/.claude', async () => {
    const imported = await runCli(['--json', 'policy', 'import', 'claude', userSettings], home, undefined, { HOME: home });
    const rules = (JSON.parse(imported.stdout) as { rules: { rule: string }[] }).rules.map((rule) => rule.rule);
    expect(rules).toEqual(['Edit(~/.claude/agents/**)', 'Edit(~/.claude/CLAUDE.md)']);
  });

  it.each([['agents/reviewer.md'], ['CLAUDE.md']])('write_file %s in the workspace is not approved by the user-settings rule', async (path) => {
    const result = await mcp!.callTool({ name: 'write_file', arguments: { path, content: 'planted by the model\n' } });
    expect(existsSync(join(gateway!.workspace, path)), text(result)).toBe(false);
    expect(text(result)).toContain('nobody can be asked');
  });

  it('control: a write the settings do not name asks (nobody can be asked here)', async () => {
    const result = await mcp!.callTool({ name: 'write_file', arguments: { path: 'other.md', content: 'x\n' } });
    expect(text(result)).toContain('nobody can be asked');
    expect(existsSync(join(gateway!.workspace, 'other.md'))).toBe(false);
  });
});
