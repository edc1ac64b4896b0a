import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// The operator lets the model use npm but not `npm exec` (which runs any package or, with -c, any shell string):
// `Bash(npm:*)` allowed, `Bash(npm exec:*)` and `Bash(npx:*)` denied. npm reads its command through aliases and
// unique prefixes (`x` and `exe` are exec) and takes its options before the command (`npm --loglevel=silent exec`),
// and `npm explore <package> -- <command>` (or `npm edit <package> --editor='sh -c …'`) runs a shell string as
// `npm exec -c` does. Read against the words as
// spelled, the deny let each run a shell string, approved by the allow in auto mode with nobody asked. A deny now
// reads npm's command as npm does and wins, and under a glob the floor refuses npm's forms that run what their
// arguments name, in every spelling.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const EXEC_SPELLINGS: readonly (readonly [string[], string])[] = [
  [['npm', 'x', '-c', 'touch pwned-x'], 'pwned-x'],
  [['npm', 'exe', '-c', 'touch pwned-exe'], 'pwned-exe'],
  [['npm', '--loglevel=silent', 'exec', '-c', 'touch pwned-global'], 'pwned-global'],
];
const FILES = {
  'package.json': '{"name":"victim","version":"1.0.0","dependencies":{"left-pad":"1.0.0"}}\n',
  // An installed dependency, as any project with node_modules has.
  'node_modules/left-pad/package.json': '{"name":"left-pad","version":"1.0.0"}\n',
  'node_modules/left-pad/index.js': 'module.exports = (s) => s;\n',
};

function servedWith(policy: object): { readonly at: () => { gateway: ServedGateway; mcp: Client } } {
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    gateway = await serveGateway({ scope: 'workspace-write', mode: 'auto', policy }, { files: FILES, args: ['--no-console'] });
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    await mcp?.close();
    await gateway?.cli.stop();
  });
  return { at: () => ({ gateway: gateway as ServedGateway, mcp: mcp as Client }) };
}

describe('attack: npm exec spelled as npm reads it, under a deny of npm exec', () => {
  // Exact entries, which the floor runs as they say: only the deny stands between the model and the shell string.
  const served = servedWith({
    allowedCommands: [['npm', 'exec', '-c', 'touch pwned-exec'], ...EXEC_SPELLINGS.map(([command]) => command)],
    allow: ['Bash(npm:*)'],
    deny: ['Bash(npm exec:*)', 'Bash(npx:*)'],
  });

  it.each([[['npm', 'exec', '-c', 'touch pwned-exec'], 'pwned-exec'] as const, ...EXEC_SPELLINGS])('%j is refused by the deny of npm exec and runs nothing', async (command, marker) => {
    const { gateway, mcp } = served.at();
    const result = await mcp.callTool({ name: 'run_command', arguments: { command } });
    expect(existsSync(join(gateway.workspace, marker)), text(result)).toBe(false);
    expect(text(result)).toContain('refused by policy rule');
  });
});

describe('attack: npm forms that run what their arguments name, under a glob', () => {
  const served = servedWith({ allowedCommandGlobs: ['npm *'], allow: ['Bash(npm:*)'], deny: ['Bash(npm exec:*)', 'Bash(npx:*)'] });

  it.each([
    ...EXEC_SPELLINGS,
    [['npm', 'explore', 'left-pad', '--', 'touch ../../pwned-explore'], 'pwned-explore'],
    [['npm', 'explore', 'left-pad', '--shell=touch ../../pwned-shell'], 'pwned-shell'],
    [['npm', 'test', '--script-shell=touch pwned-script-shell'], 'pwned-script-shell'],
    // `npm edit` splits its editor on blanks and starts it.
    [['npm', 'edit', 'left-pad', '--editor=sh -c touch${IFS}../../pwned-edit'], 'pwned-edit'],
    [['npm', '--editor=sh -c touch${IFS}../../pwned-edit2', 'edit', 'left-pad'], 'pwned-edit2'],
  ] as const)('%j is refused by the floor and runs nothing', async (command, marker) => {
    const { gateway, mcp } = served.at();
    const result = await mcp.callTool({ name: 'run_command', arguments: { command: [...command] } });
    expect(existsSync(join(gateway.workspace, marker)), text(result)).toBe(false);
    expect(text(result)).toContain('npm exec/x, explore');
  });

  it('an ordinary npm command still runs', async () => {
    const { mcp } = served.at();
    const result = await mcp.callTool({ name: 'run_command', arguments: { command: ['npm', 'pkg', 'get', 'name'] } });
    expect(text(result)).toContain('victim');
  });
});
