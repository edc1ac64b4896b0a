import { describe, expect, it, vi } from 'vitest';
import { ToolgateError } from '../core/internal.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { McpServerConfig } from './mcp-types.js';
import { McpServerUnavailableError } from './mcp-server-unavailable-error.js';
import { startInitialServers } from './start-initial-servers.js';

const config = (name: string) => ({ name, transport: 'stdio', command: 'node' }) as McpServerConfig;
function upstream(name: string) {
  const close = vi.fn(() => Promise.resolve());
  return { server: { config: config(name), client: { close } } as unknown as UpstreamServer, close };
}

describe('startInitialServers', () => {
  it('reports each server up or down in configuration order, and hands the ones up to accept', async () => {
    const { server: a, close } = upstream('a');
    const unavailable = new McpServerUnavailableError('b', new Error('exited'), '');
    const accepted: string[] = [];
    const outcomes = await startInitialServers([config('a'), config('b')], (item) => (item.name === 'a' ? Promise.resolve(a) : Promise.reject(unavailable)), (up) => accepted.push(...up.keys()));
    expect(outcomes).toEqual([
      { type: 'up', name: 'a', server: a },
      { type: 'down', name: 'b', reason: unavailable },
    ]);
    expect(accepted).toEqual(['a']);
    expect(close).not.toHaveBeenCalled();
  });

  it('fails the whole start on any other failure, closing the servers that came up and accepting nothing', async () => {
    const { server: a, close } = upstream('a');
    const corrupt = new ToolgateError('CONFIGURATION_INVALID', 'The pin store is corrupt.');
    const accept = vi.fn();
    await expect(startInitialServers([config('a'), config('b')], (item) => (item.name === 'a' ? Promise.resolve(a) : Promise.reject(corrupt)), accept)).rejects.toBe(corrupt);
    expect(accept).not.toHaveBeenCalled();
    expect(close).toHaveBeenCalledOnce();
  });

  it('closes the servers that came up when accept refuses them', async () => {
    const { server: a, close } = upstream('a');
    const refusal = new ToolgateError('CONFIGURATION_INVALID', 'The servers cannot be taken.');
    const refuse = () => {
      throw refusal;
    };
    await expect(startInitialServers([config('a')], () => Promise.resolve(a), refuse)).rejects.toBe(refusal);
    expect(close).toHaveBeenCalledOnce();
  });
});
