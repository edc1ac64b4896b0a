import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { CLI } from './support/spawn-cli.js';
import { consoleApi, makeWorkspace } from './support/serve-gateway.js';

// Who holds the console's token: only the operator. Through `toolgate serve --stdio`, the real MCP SDK client and the console's API.

describe('attack: the MCP client that spawned the gateway approves its own call', () => {
  it('finds no console token on the gateway stderr it reads, so every approval it posts is refused; the operator finds it with `toolgate console`', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'ask' }, { 'notes.md': 'first\n' });
    // An agent loop that is not trusted to elicit: everything it can see of the gateway is its stdout and stderr.
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--json', 'serve', '--stdio'], cwd: workspace, stderr: 'pipe' });
    let stderr = '';
    (transport.stderr as Readable | null)?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const client = new Client({ name: 'agent-loop', version: '1.0.0' });
    await client.connect(transport);
    try {
      await expect.poll(() => /"console":"([^"]+)"/.exec(stderr)?.[1], { timeout: 15_000 }).toBeDefined();
      const call = client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'pwned\n' } });
      // The operator's way to the console: the locator only the user can read, which every tool is refused.
      const operator = new URL((JSON.parse(readFileSync(join(workspace, '.toolgate', 'console.json'), 'utf8')) as { url: string }).url);
      await expect.poll(async () => ((await consoleApi(operator, '/api/approvals')).body as unknown[]).length, { timeout: 15_000 }).toBe(1);
      const [approval] = (await consoleApi(operator, '/api/approvals')).body as { id: string }[];
      // The client tries every console address and token-shaped value its stderr holds.
      const addresses = [...stderr.matchAll(/http:\/\/127\.0\.0\.1:\d+\/\S*?(?=["\s)]|$)/g)].map((match) => new URL(match[0]));
      expect(addresses.length).toBeGreaterThan(0);
      for (const address of addresses) {
        const token = address.searchParams.get('token') ?? '';
        const posted = await fetch(new URL(`/api/approvals/${approval?.id ?? ''}`, address), { method: 'POST', headers: { 'x-toolgate-token': token, 'content-type': 'application/json' }, body: '{"decision":"once"}' });
        expect(posted.status).toBe(401);
      }
      expect(stderr).not.toContain(operator.searchParams.get('token'));
      await consoleApi(operator, `/api/approvals/${approval?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'reject' }) });
      expect((await call).isError).toBe(true);
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('first\n');
    } finally {
      await client.close();
    }
  });
});
