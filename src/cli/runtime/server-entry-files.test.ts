import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completedEntryFiles, moduleFiles } from './server-entry-files.js';

describe('completedEntryFiles', () => {
  it('names what node and python complete a script\'s name to, as a file and as a folder, whether or not it exists', () => {
    const files = completedEntryFiles('/w/servers/notes');
    expect(files).toEqual(expect.arrayContaining(['/w/servers/notes.js', '/w/servers/notes.cjs', '/w/servers/notes.mjs', '/w/servers/notes.py', '/w/servers/notes/index.js', '/w/servers/notes/package.json', '/w/servers/notes/__main__.py']));
    expect(files).not.toContain('/w/servers/notes');
  });

  it('follows the main a folder\'s package.json names, completed the same way', () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-entry-files-'));
    mkdirSync(join(folder, 'notes'));
    writeFileSync(join(folder, 'notes', 'package.json'), '{"main":"lib/main"}');
    expect(completedEntryFiles(join(folder, 'notes'))).toEqual(expect.arrayContaining([join(folder, 'notes/lib/main'), join(folder, 'notes/lib/main.js'), join(folder, 'notes/lib/main/index.js')]));
  });
});

describe('moduleFiles', () => {
  it('names the module, its package\'s __main__.py and the __init__.py of each package on the way', () => {
    expect(moduleFiles('/w', 'servers.notes')).toEqual(['/w/servers/__init__.py', '/w/servers/notes.py', '/w/servers/notes/__main__.py', '/w/servers/notes/__init__.py']);
  });

  it('names nothing for what is no dotted module name', () => {
    expect(moduleFiles('/w', '../etc')).toEqual([]);
    expect(moduleFiles('/w', 'a/b')).toEqual([]);
  });
});
