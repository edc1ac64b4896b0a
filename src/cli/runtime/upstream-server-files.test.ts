import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { upstreamServerEntries, upstreamServerFiles } from './upstream-server-files.js';

function configWith(file: unknown, files: readonly string[] = []) {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-server-files-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify(file));
  for (const name of files) {
    mkdirSync(join(workspace, name, '..'), { recursive: true });
    writeFileSync(join(workspace, name), '');
  }
  return loadConfig(workspace);
}

describe('upstreamServerFiles', () => {
  it('names the scripts, and a command by its path, that a stdio server starts from the workspace, and the file an option names by its value', () => {
    const config = configWith(
      {
        servers: {
          notes: { command: 'node', args: ['--import=./hooks/preload.mjs', 'servers/notes.mjs'] },
          tool: { command: './bin/server', args: ['--stdio', '--level='] },
          py: { command: 'python3', args: ['-u', 'tools/server.py'] },
        },
      },
      ['servers/notes.mjs', 'hooks/preload.mjs', 'bin/server', 'tools/server.py'],
    );
    const inWorkspace = (name: string): string => join(config.workspace, name);
    expect(upstreamServerFiles(config)).toEqual([inWorkspace('hooks/preload.mjs'), inWorkspace('servers/notes.mjs'), inWorkspace('bin/server'), inWorkspace('tools/server.py')]);
  });

  it('names the files its environment names as paths, a module node loads included, and no other word of it', () => {
    const config = configWith(
      { servers: { notes: { command: 'node', args: ['/srv/notes.mjs'], env: { NODE_OPTIONS: '--require ./hooks/preload.cjs --import=./hooks/esm.mjs', API_TOKEN: 'sk-live-0123', MODE: 'production', DATA: './data' } } } },
      ['hooks/preload.cjs', 'hooks/esm.mjs', 'data/db.json'],
    );
    expect(upstreamServerFiles(config)).toEqual([join(config.workspace, 'hooks/preload.cjs'), join(config.workspace, 'hooks/esm.mjs')]);
  });

  it('counts a name that does not exist yet, and leaves out folders, the workspace itself, places outside it and HTTP servers', () => {
    const config = configWith(
      {
        servers: {
          fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.', 'docs'] },
          later: { command: 'node', args: ['servers/later.mjs', '/usr/lib/node_modules/x/index.js', '../elsewhere.mjs'] },
          web: { url: 'https://mcp.example.com/mcp' },
        },
      },
      ['docs/readme.md'],
    );
    const inWorkspace = (name: string): string => join(config.workspace, name);
    expect(upstreamServerFiles(config)).toEqual([inWorkspace('@modelcontextprotocol/server-filesystem'), inWorkspace('servers/later.mjs')]);
  });
});

describe('upstreamServerEntries', () => {
  it('names what a runtime runs for a script named without its extension, a folder, and a module on a PYTHONPATH of the workspace', () => {
    const config = configWith({ servers: { notes: { command: 'node', args: ['servers/notes'] }, tool: { command: 'node', args: ['./tools/server/'] } } }, ['servers/notes.js', 'tools/server/index.js']);
    const entries = upstreamServerEntries(config);
    expect(entries).toEqual(expect.arrayContaining([join(config.workspace, 'servers/notes.js'), join(config.workspace, 'tools/server/index.js')]));
    const python = configWith({ servers: { py: { command: 'python3', args: ['-m', 'servers.notes'] } } });
    // Without the workspace on PYTHONPATH, python -m finds no module of it.
    expect(upstreamServerEntries(python)).not.toContain(join(python.workspace, 'servers/notes.py'));
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-server-files-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ servers: { py: { command: 'python3', args: ['-m', 'servers.notes'], env: { PYTHONPATH: workspace } } } }));
    expect(upstreamServerEntries(loadConfig(workspace))).toEqual(expect.arrayContaining(['servers/__init__.py', 'servers/notes.py', 'servers/notes/__main__.py', 'servers/notes/__init__.py'].map((name) => join(workspace, name))));
  });

  it('completes only what a runtime is handed: a folder another program serves is its data', () => {
    const config = configWith({ servers: { fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', 'src'] } } }, ['src/index.js', 'src/package.json']);
    expect(upstreamServerEntries(config)).not.toContain(join(config.workspace, 'src/index.js'));
    expect(upstreamServerEntries(config)).not.toContain(join(config.workspace, 'src/package.json'));
  });

  it('names the file a command by its name alone runs from each folder of the workspace on the PATH it declares, and none elsewhere', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-server-files-'));
    const env = { PATH: `${workspace}/bin:/usr/local/bin:${workspace}/tools/bin:/usr/bin` };
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ servers: { notes: { command: 'notes-server', env }, plain: { command: 'notes-other' } } }));
    const named = upstreamServerEntries(loadConfig(workspace)).filter((file) => /\/notes-(?:server|other)$/.test(file));
    expect(named).toEqual([join(workspace, 'bin/notes-server'), join(workspace, 'tools/bin/notes-server')]);
  });

  it('leaves out what lies outside the workspace, and HTTP servers', () => {
    const config = configWith({ servers: { later: { command: 'node', args: ['../elsewhere', '/usr/lib/node_modules/x'] }, web: { url: 'https://mcp.example.com/mcp' } } });
    expect(upstreamServerEntries(config)).toEqual([]);
  });
});

