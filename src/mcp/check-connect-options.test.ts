import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../core/internal.js';
import { checkConnectOptions } from './check-connect-options.js';
import type { ConnectMcpServersOptions } from './mcp-types.js';

const check = (options: unknown) => () => checkConnectOptions(options as ConnectMcpServersOptions);

describe('checkConnectOptions', () => {
  it('accepts a valid configuration', () => {
    expect(check({ servers: [{ name: 'files', transport: 'stdio', command: 'node' }, { name: 'web', transport: 'http', url: 'https://example.com/mcp' }], pinning: 'approve' })).not.toThrow();
  });

  it.each([
    ['no server list', null, 'servers'],
    ['a name with "__"', { servers: [{ name: 'a__b', transport: 'stdio', command: 'x' }] }, 'servers[0].name'],
    ['a repeated name', { servers: [{ name: 'a', transport: 'stdio', command: 'x' }, { name: 'a', transport: 'stdio', command: 'x' }] }, 'servers[1].name'],
    ['an unknown transport', { servers: [{ name: 'a', transport: 'ws' }] }, 'servers[0].transport'],
    ['a time limit over an hour', { servers: [{ name: 'a', transport: 'stdio', command: 'x', connectTimeoutMs: 3_600_001 }] }, 'servers[0].connectTimeoutMs'],
    ['an unknown pinning mode', { servers: [], pinning: 'never' }, 'pinning'],
  ])('refuses %s', (_label, options, field) => {
    expect(check(options)).toThrow(ConfigurationError);
    expect(check(options)).toThrow(field);
  });
});
