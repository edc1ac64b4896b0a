import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createConfirm, createToolRegistry, defineTool, type ToolPolicy } from '../core/index.js';
import { REUSED_REQUEST_ID_MESSAGE } from './refuse-reused-request-ids.js';
import { serveMcp } from './serve-mcp.js';

const askEverything: ToolPolicy = { version: 1, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'ask', matched: [] }) };

describe('refuseReusedRequestIds, over stdio', () => {
  it('refuses a tools/call under the id of one waiting for a person, and the end of stdin withdraws that one', async () => {
    // Before: the second call took the first's abort controller, and the first's approval outlived the client.
    let ran = 0;
    const tools = [defineTool({ name: 'effect', description: 'Has an effect.', input: { type: 'object', properties: {} }, dispatch: () => String((ran += 1)) })];
    const prompts: { withdrawn: boolean }[] = [];
    const controller = createConfirm({
      mode: 'ask',
      prompt: (_request, _context, signal) =>
        new Promise((resolve) => {
          const prompt = { withdrawn: false };
          prompts.push(prompt);
          signal?.addEventListener('abort', () => {
            prompt.withdrawn = true;
            resolve({ outcome: 'reject' });
          });
        }),
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, end)) as Record<string, unknown>);
        buffered = buffered.slice(end + 1);
      }
    });
    const gateway = await serveMcp(createToolRegistry({ tools, policy: askEverything }), { stdin, stdout, context: { grantedTools: ['effect'] }, controller });
    const send = (message: object): boolean => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'effect', arguments: {} } });
    await expect.poll(() => prompts.length).toBe(1);
    send({ id: 2, method: 'tools/call', params: { name: 'effect', arguments: {} } });
    await expect.poll(() => lines.find((line) => line.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32600, message: REUSED_REQUEST_ID_MESSAGE } });
    expect(prompts).toHaveLength(1);
    stdin.end();
    await expect.poll(() => prompts[0]?.withdrawn).toBe(true);
    await gateway.close();
    expect(ran).toBe(0);
  });
});
