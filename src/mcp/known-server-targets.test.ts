import { mkdirSync, mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { recognizeServer } from './known-server-targets.js';
import type { McpServerConfig } from './mcp-types.js';

const FILESYSTEM = join(import.meta.dirname, '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const stdio = (command: string, args: string[] = [], cwd = '/work/repo', env?: Record<string, string>): McpServerConfig => ({ name: 'up', transport: 'stdio', command, args, cwd, ...(env === undefined ? {} : { env }) });

describe('recognizeServer', () => {
  it.each<[string, McpServerConfig, string | undefined]>([
    ['npx with the scoped package', stdio('npx', ['-y', '@modelcontextprotocol/server-filesystem', '.']), 'filesystem'],
    ['npx with a version', stdio('npx', ['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '/work/repo']), 'filesystem'],
    ['node and the installed entry point', stdio('/usr/bin/node', [FILESYSTEM, '/work/repo']), 'filesystem'],
    ['the installed executable', stdio('/usr/local/bin/mcp-server-filesystem', ['/work/repo']), 'filesystem'],
    ['uvx mcp-server-fetch', stdio('uvx', ['mcp-server-fetch']), 'fetch'],
    ['uvx with a pinned version', stdio('uvx', ['mcp-server-fetch==2025.4.7']), 'fetch'],
    ['python -m mcp_server_fetch', stdio('python', ['-m', 'mcp_server_fetch']), 'fetch'],
    ['the fetch executable by path', stdio('/home/u/.local/bin/mcp-server-fetch', []), 'fetch'],
    ['uvx mcp-server-git with a repository', stdio('uvx', ['mcp-server-git', '--repository', '.']), 'git'],
    ['python -m mcp_server_git', stdio('python3', ['-m', 'mcp_server_git']), 'git'],
    ['a script named after the git server', stdio('node', ['/opt/mcp-server-git.mjs']), 'git'],
    ['another server', stdio('npx', ['-y', '@modelcontextprotocol/server-everything']), undefined],
    ['a look-alike name', stdio('npx', ['my-mcp-server-fetcher']), undefined],
    ['a look-alike scope', stdio('npx', ['@evil/server-filesystem']), undefined],
  ])('%s', (_label, server, kind) => {
    expect(recognizeServer(server)?.kind).toBe(kind);
  });

  it('does not recognise an HTTP server, whatever its URL says', () => {
    expect(recognizeServer({ name: 'up', transport: 'http', url: 'http://127.0.0.1:1/mcp-server-fetch', local: true })).toBeUndefined();
  });
});

describe("server-filesystem's path spellings", () => {
  const spell = (args: string[], path: string): readonly string[] => recognizeServer(stdio('npx', ['@modelcontextprotocol/server-filesystem', ...args]))?.spellings?.(path) ?? [];

  it('reads a relative path against its directory, as the server does', () => {
    expect(spell(['.'], '.env')).toEqual(['/work/repo/.env']);
    expect(spell([], 'src/a.ts')).toEqual(['/work/repo/src/a.ts']);
    expect(spell(['/srv/data'], '.env')).toEqual(['/srv/data/.env']);
    expect(spell(['.'], '../other/x')).toEqual(['/work/other/x']);
    expect(spell(['.'], '')).toEqual(['/work/repo']);
  });

  it('judges each directory a relative path may land in, and an absolute path as itself', () => {
    expect(spell(['/a', '/b'], 'x')).toEqual(['/a/x', '/b/x']);
    expect(spell(['/a', '/b'], '/b/./y/../z')).toEqual(['/b/z']);
  });

  it('adds the NFC spelling, which the server matches a missing name with', () => {
    // "K" as KELVIN SIGN and an e with a combining accent: NFC turns them into "K" and "é".
    expect(spell(['.'], 'secrets/\u212AEY')).toEqual(['/work/repo/secrets/\u212AEY', '/work/repo/secrets/KEY']);
    expect(spell(['.'], 'cafe\u0301')).toEqual(['/work/repo/cafe\u0301', '/work/repo/caf\u00e9']);
  });

  it('adds the names on disk the server opens in place of missing ones equal to them after NFC normalisation', () => {
    const root = mkdtempSync(join(tmpdir(), 'toolgate-nfc-'));
    mkdirSync(join(root, 'cafe\u0301', 'sub'), { recursive: true });
    mkdirSync(join(root, '\u212Aeys'));
    // ệ twice: decomposed in canonical order, and composed.
    mkdirSync(join(root, 'e\u0323\u0302'));
    mkdirSync(join(root, '\u1ec7'));
    // A composed spelling of a decomposed folder, below it a name that does not exist yet.
    expect(spell([root], 'caf\u00e9/sub/new.txt')).toContain(join(root, 'cafe\u0301', 'sub', 'new.txt'));
    // KELVIN SIGN on disk, an ASCII K asked for.
    expect(spell([root], 'Keys/id')).toContain(join(root, '\u212Aeys', 'id'));
    // As spelled when it is there, and when two names are equal to it (the server refuses the path).
    expect(spell([root], 'cafe\u0301/sub')).toEqual([join(root, 'cafe\u0301', 'sub'), join(root, 'caf\u00e9', 'sub')]);
    expect(spell([root], 'e\u0302\u0323/a')).toEqual([join(root, 'e\u0302\u0323', 'a'), join(root, '\u1ec7', 'a')]);
  });

  it('reads ~ as the server does: its home, the one its environment names', () => {
    const withHome = (home: string | undefined, path: string): readonly string[] =>
      recognizeServer(stdio('npx', ['@modelcontextprotocol/server-filesystem', '.'], '/work/repo', home === undefined ? undefined : { HOME: home }))?.spellings?.(path) ?? [];
    expect(withHome('/home/me', '~/.ssh/id_rsa')).toEqual(['/home/me/.ssh/id_rsa']);
    expect(withHome('/home/me', '~')).toEqual(['/home/me']);
    expect(withHome(undefined, '~/.config/toolgate/policy.json')).toEqual([join(homedir(), '.config/toolgate/policy.json')]);
    // Only `~` alone or before a slash: `~user` and `a/~/b` are names like any other.
    expect(withHome('/home/me', '~root/x')).toEqual(['/work/repo/~root/x']);
    // Its directories too: `server-filesystem ~/notes` serves the home's notes.
    expect(recognizeServer(stdio('npx', ['@modelcontextprotocol/server-filesystem', '~/notes'], '/work/repo', { HOME: '/home/me' }))?.spellings?.('a.md')).toEqual(['/home/me/notes/a.md']);
  });
});

describe('the shipped table for server-filesystem, against the installed server', () => {
  it('covers every tool that takes a path, with the argument names it declares, read-only exactly where it says so', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolgate-known-'));
    const client = new Client({ name: 'table-check', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [FILESYSTEM, directory], stderr: 'ignore' }));
    let tools: Tool[];
    try {
      tools = (await client.listTools()).tools;
    } finally {
      await client.close();
    }
    const table = recognizeServer(stdio(process.execPath, [FILESYSTEM, directory]))?.tools ?? {};
    const PATH_ARGUMENTS = ['path', 'paths', 'source', 'destination'];
    for (const tool of tools) {
      const declared = Object.keys(tool.inputSchema.properties ?? {}).filter((key) => PATH_ARGUMENTS.includes(key));
      const entry = table[tool.name];
      if (declared.length === 0) {
        expect(entry, tool.name).toBeUndefined();
        continue;
      }
      expect(entry, tool.name).toBeDefined();
      const pointers = [entry?.targets.path, ...[entry?.targets.paths ?? []].flat()].filter((pointer) => pointer !== undefined);
      expect(pointers.map((pointer) => pointer.slice(1)).sort(), tool.name).toEqual(declared.sort());
      expect(entry?.access, tool.name).toBe(tool.annotations?.readOnlyHint === true ? 'read' : 'write');
    }
    expect(Object.keys(table).filter((name) => !tools.some((tool) => tool.name === name))).toEqual([]);
  });
});
