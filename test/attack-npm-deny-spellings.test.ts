import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// The operator lets the model use npm but not `npm exec` (which runs any package or, with -c, any shell string):
// `Bash(npm:*)` allowed, `Bash(npm exec:*)` denied. npm reads its command through aliases and unique prefixes (`x`
// and `exe` are exec) and takes its options before the command (`npm --loglevel=silent exec`). Read against the
// words as spelled, the deny let each of these run `npm exec -c …`, approved by the allow in auto mode with nobody
// asked. A deny now reads npm's command as npm does, and wins.

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

describe('attack: npm exec spelled as npm reads it, under a deny of npm exec', () => {
  let gateway: ServedGateway | undefined;
  let mcp: Client | undefined;
  beforeAll(async () => {
    gateway = await serveGateway(
      {
        scope: 'workspace-write',
        mode: 'auto',
        policy: { allowedCommandGlobs: ['npm *'], allow: ['Bash(npm:*)'], deny: ['Bash(npm exec:*)', 'Bash(npx:*)'] },
      },
      { files: { 'package.json': '{"name":"victim","version":"1.0.0"}\n' }, args: ['--no-console'] },
    );
    mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
  });
  afterAll(async () => {
    await mcp?.close();
    await gateway?.cli.stop();
  });

  it('control: npm exec as spelled is refused by the deny and runs nothing', async () => {
    const result = await mcp!.callTool({ name: 'run_command', arguments: { command: ['npm', 'exec', '-c', 'touch pwned-exec'] } });
    expect(text(result)).toContain('refused by policy rule');
    expect(existsSync(join(gateway!.workspace, 'pwned-exec'))).toBe(false);
  });

  it.each([
    [['npm', 'x', '-c', 'touch pwned-x'], 'pwned-x'],
    [['npm', 'exe', '-c', 'touch pwned-exe'], 'pwned-exe'],
    [['npm', '--loglevel=silent', 'exec', '-c', 'touch pwned-global'], 'pwned-global'],
  ])('%j is refused by the deny of npm exec and runs nothing', async (command, marker) => {
    const result = await mcp!.callTool({ name: 'run_command', arguments: { command } });
    expect(existsSync(join(gateway!.workspace, marker)), text(result)).toBe(false);
    expect(text(result)).toContain('refused by policy rule');
  });
});
