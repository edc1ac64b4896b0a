import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayAuth, startCli, type RunningCli } from './support/spawn-cli.js';

describe('toolgate serve --no-elicitation', () => {
  let cli: RunningCli | undefined;
  afterEach(async () => {
    await cli?.stop();
  });

  it('never lets the MCP client answer an approval: the call waits for the console', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-serve-approvals-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'ask' }));
    writeFileSync(join(workspace, 'notes.md'), 'first\n');
    cli = startCli(['--json', 'serve', '--http', '0', '--no-elicitation'], workspace);
    const started = await cli.ready;
    const consoleUrl = new URL(String(started.console));
    const token = consoleUrl.searchParams.get('token') ?? '';
    const api = (path: string, init: RequestInit = {}) =>
      fetch(new URL(path, consoleUrl), { ...init, headers: { 'x-toolgate-token': token, 'content-type': 'application/json' } }).then((response): Promise<unknown> => response.json());

    // A client that declares elicitation, and would approve anything it is asked.
    const asked: unknown[] = [];
    const client = new Client({ name: 'self-approver', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { approve: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(String(started.mcp)), gatewayAuth(started)));
    try {
      const call = client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'changed\n' } });
      await expect.poll(async () => ((await api('/api/approvals')) as unknown[]).length, { timeout: 15_000 }).toBe(1);
      expect(asked).toEqual([]);
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('first\n');
      const [pending] = (await api('/api/approvals')) as { id: string }[];
      await api(`/api/approvals/${pending?.id ?? ''}`, { method: 'POST', body: JSON.stringify({ decision: 'once' }) });
      expect((await call).isError).not.toBe(true);
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('changed\n');
      expect(asked).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
