import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { McpServerConfig } from './mcp-types.js';
import { checkServerGovernance, upstreamGovernance } from './upstream-governance.js';

const FILESYSTEM = ['-y', '@modelcontextprotocol/server-filesystem', '.'];
const server = (extra: Partial<McpServerConfig> = {}, args: string[] = ['fixture.mjs']): McpServerConfig => ({ name: 'up', transport: 'stdio', command: 'npx', args, ...extra }) as McpServerConfig;
const tool = (name: string, annotations?: Tool['annotations']): Pick<Tool, 'name' | 'annotations'> => ({ name, ...(annotations === undefined ? {} : { annotations }) });
const READ_ONLY = { readOnlyHint: true };

describe('upstreamGovernance', () => {
  it('governs every tool of an untrusted server, whatever it claims', () => {
    expect(upstreamGovernance(server(), tool('lookup', READ_ONLY))).toMatchObject({ governed: true, reason: 'untrusted server', readOnly: false, access: undefined, targetsFrom: undefined });
  });

  it('leaves a trusted, read-only, non-destructive tool ungoverned; a trusted tool that is not read-only is governed', () => {
    const trusted = server({ trust: 'annotations' });
    expect(upstreamGovernance(trusted, tool('lookup', READ_ONLY))).toMatchObject({ governed: false, reason: 'trusted, read-only annotation', readOnly: true });
    expect(upstreamGovernance(trusted, tool('lookup', { readOnlyHint: true, destructiveHint: true }))).toMatchObject({ governed: true, reason: 'not read-only', readOnly: false });
    expect(upstreamGovernance(trusted, tool('lookup'))).toMatchObject({ governed: true, reason: 'not read-only' });
    // The older spelling means the same.
    expect(upstreamGovernance(server({ trusted: true }), tool('lookup', READ_ONLY)).governed).toBe(false);
  });

  it('takes the shipped targets of a recognised server, and the configuration over them, tool by tool', () => {
    const fs = server({}, FILESYSTEM);
    expect(upstreamGovernance(fs, tool('read_text_file', READ_ONLY))).toMatchObject({ governed: true, access: 'read', targets: { path: '/path' }, targetsFrom: 'shipped' });
    expect(upstreamGovernance(fs, tool('move_file'))).toMatchObject({ access: 'write', targets: { paths: ['/source', '/destination'] } });
    // A tool the table does not list: no targets, still governed.
    expect(upstreamGovernance(fs, tool('list_allowed_directories', READ_ONLY))).toMatchObject({ governed: true, targets: {}, targetsFrom: undefined });
    const configured = server({ targets: { read_text_file: { path: '/file' }, extra: { url: '/u' } } }, FILESYSTEM);
    expect(upstreamGovernance(configured, tool('read_text_file'))).toMatchObject({ targets: { path: '/file' }, targetsFrom: 'config', access: 'read' });
    expect(upstreamGovernance(configured, tool('extra'))).toMatchObject({ targets: { url: '/u' }, targetsFrom: 'config', access: undefined });
  });

  it('takes a configured path target as written unless the tool is trusted read-only or an override says read', () => {
    const targets = { lookup: { path: '/p' } };
    expect(upstreamGovernance(server({ targets }), tool('lookup', READ_ONLY)).access).toBe('write');
    expect(upstreamGovernance(server({ targets, trust: 'annotations' }), tool('lookup', READ_ONLY))).toMatchObject({ access: 'read', governed: false });
    expect(upstreamGovernance(server({ targets, tools: { lookup: { access: 'read' } } }), tool('lookup')).access).toBe('read');
  });

  it('a trusted read-only tool that writes paths by the table is governed', () => {
    expect(upstreamGovernance(server({ trust: 'annotations' }, FILESYSTEM), tool('write_file', READ_ONLY))).toMatchObject({ governed: true, reason: 'writes files', access: 'write' });
  });

  it('applies per-tool overrides, never to let a write go ungoverned', () => {
    const overridden = server({ trust: 'annotations', tools: { lookup: { governed: true }, add: { governed: false } } });
    expect(upstreamGovernance(overridden, tool('lookup', READ_ONLY))).toMatchObject({ governed: true, reason: 'override' });
    expect(upstreamGovernance(overridden, tool('add'))).toMatchObject({ governed: false, reason: 'override' });
    // governed: false on a tool whose configured path defaults to a write (the check refuses it when it can tell).
    const write = server({ targets: { add: { path: '/p' } }, tools: { add: { governed: false } } });
    expect(upstreamGovernance(write, tool('add'))).toMatchObject({ governed: true, reason: 'writes files' });
  });

  it('with governed: false on the server, governs only what writes paths', () => {
    const ungoverned = server({ governed: false }, FILESYSTEM);
    expect(upstreamGovernance(ungoverned, tool('read_text_file'))).toMatchObject({ governed: false, reason: 'server not governed', access: 'read' });
    expect(upstreamGovernance(ungoverned, tool('write_file'))).toMatchObject({ governed: true, reason: 'writes files' });
  });

  it('finds only own members: a tool named after an Object member gets nothing it did not configure', () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      expect(upstreamGovernance(server({}, FILESYSTEM), tool(name))).toMatchObject({ governed: true, targets: {}, targetsFrom: undefined });
    }
  });
});

describe('checkServerGovernance', () => {
  const check = (extra: Record<string, unknown>, args: string[] = ['fixture.mjs']) => () => checkServerGovernance({ ...server({}, args), ...extra }, 'servers.fs');

  it('names the key that is wrong', () => {
    expect(check({ trust: 'all' })).toThrow('Configuration "servers.fs.trust" must be "none" or "annotations"');
    expect(check({ trusted: 'yes' })).toThrow('"servers.fs.trusted" must be true or false');
    expect(check({ trust: 'none', trusted: true })).toThrow('"servers.fs.trusted" contradicts "trust": "none"');
    expect(check({ governed: 1 })).toThrow('"servers.fs.governed" must be true or false');
    expect(check({ targets: [] })).toThrow('"servers.fs.targets" must be an object keyed by upstream tool name');
    expect(check({ targets: { read_file: { path: 'path' } } })).toThrow('"servers.fs.targets.read_file.path" must be a JSON pointer');
    expect(check({ targets: { read_file: { glob: '/g' } } })).toThrow('"servers.fs.targets.read_file.glob" is not a target kind');
    expect(check({ tools: { add: true } })).toThrow('"servers.fs.tools.add" must be an object');
    expect(check({ tools: { add: { trusted: true } } })).toThrow('"servers.fs.tools.add.trusted" is not a tool setting');
    expect(check({ tools: { add: { governed: 'no' } } })).toThrow('"servers.fs.tools.add.governed" must be true or false');
    expect(check({ tools: { add: { access: 'append' } } })).toThrow('"servers.fs.tools.add.access" must be "read" or "write"');
  });

  it('refuses governed: false for a tool that writes the paths it names', () => {
    expect(check({ tools: { write_file: { governed: false } } }, FILESYSTEM)).toThrow('"servers.fs.tools.write_file.governed" cannot be false for a tool that writes the paths its targets name');
    expect(check({ targets: { add: { path: '/p' } }, tools: { add: { governed: false } } })).toThrow('"servers.fs.tools.add.governed" cannot be false');
    expect(check({ tools: { read_text_file: { governed: false } } }, FILESYSTEM)).not.toThrow();
    expect(check({ targets: { add: { path: '/p' } }, tools: { add: { governed: false, access: 'read' } } })).not.toThrow();
    expect(check({ trust: 'annotations', trusted: true, tools: { add: { governed: false } } })).not.toThrow();
  });

  it('refuses targets that drop a kind toolgate ships for a tool of a recognised server: an empty entry would take its workspace jail away', () => {
    expect(check({ targets: { read_text_file: {} } }, FILESYSTEM)).toThrow('"servers.fs.targets.read_text_file" drops the path target toolgate knows this server reads (give its JSON pointer)');
    expect(check({ targets: { move_file: { url: '/u' } } }, FILESYSTEM)).toThrow('"servers.fs.targets.move_file" drops the path target');
    // Other pointers to the same kind are the operator's to give; a tool the table does not list takes any targets.
    expect(check({ targets: { read_text_file: { path: '/file' }, move_file: { paths: ['/from', '/to'] }, list_allowed_directories: {} } }, FILESYSTEM)).not.toThrow();
    expect(check({ targets: { read_text_file: {} } })).not.toThrow();
  });
});
