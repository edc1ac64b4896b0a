import { describe, expect, it, vi } from 'vitest';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { McpServerConfig } from './mcp-types.js';
import { restartServer, type RestartServerOptions } from './restart-server.js';

const config = { name: 'gh', command: 'gh-mcp' } as unknown as McpServerConfig;
const serverOf = () => {
  const close = vi.fn(() => Promise.resolve());
  return { server: { config, client: { close } } as unknown as UpstreamServer, close };
};
const optionsOf = (overrides: Partial<RestartServerOptions>): RestartServerOptions => ({
  servers: new Map(),
  start: () => Promise.reject(new Error('not started')),
  publish: () => undefined,
  isClosed: () => false,
  ...overrides,
});

describe('restartServer', () => {
  it('adds a server that comes up and offers its tools', async () => {
    const { server, close } = serverOf();
    const options = optionsOf({ start: () => Promise.resolve(server), publish: vi.fn() });
    expect(await restartServer(config, options)).toEqual({ kind: 'up', server });
    expect(options.servers.get('gh')).toBe(server);
    expect(options.publish).toHaveBeenCalledOnce();
    expect(close).not.toHaveBeenCalled();
  });

  it('keeps a server that does not start down, with its error', async () => {
    const error = new Error('spawn ENOENT');
    expect(await restartServer(config, optionsOf({ start: () => Promise.reject(error) }))).toEqual({ kind: 'down', error });
  });

  it('closes a server whose tools collide and keeps it down, out of the servers that are up', async () => {
    const { server, close } = serverOf();
    const collision = new Error('tool name taken');
    const options = optionsOf({
      start: () => Promise.resolve(server),
      publish: () => {
        throw collision;
      },
    });
    expect(await restartServer(config, options)).toEqual({ kind: 'down', error: collision });
    expect(options.servers.has('gh')).toBe(false);
    expect(close).toHaveBeenCalledOnce();
  });

  it('closes a server that comes up after the connection closed, and offers nothing', async () => {
    const { server, close } = serverOf();
    let closed = false;
    const options = optionsOf({ start: () => ((closed = true), Promise.resolve(server)), publish: vi.fn(), isClosed: () => closed });
    expect(await restartServer(config, options)).toEqual({ kind: 'closed' });
    expect(close).toHaveBeenCalledOnce();
    expect(options.publish).not.toHaveBeenCalled();
    expect(options.servers.size).toBe(0);
    expect(await restartServer(config, optionsOf({ isClosed: () => true }))).toEqual({ kind: 'closed' });
  });
});
