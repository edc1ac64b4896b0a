import { describe, expect, it } from 'vitest';
import type { ResolvedAction, ResolvedPath } from '../../core/internal.js';
import { frameworkCardShows } from './framework-card.js';

const plain: ResolvedPath = { requested: 'docs/a.md', path: 'docs/a.md', real: 'docs/a.md', protected: false, linkTraversal: false, outside: false, created: false, hardLinked: false };

function action(files: readonly ResolvedPath[], command?: ResolvedAction['command']): ResolvedAction {
  return { resolvedBy: 'host', access: 'write', files, ...(command === undefined ? {} : { command }) };
}

describe('frameworkCardShows', () => {
  it('stands for a call whose targets are what its arguments spell, a new file included, and for one with no target', () => {
    expect(frameworkCardShows({ resolved: undefined })).toBe(true);
    expect(frameworkCardShows({ resolved: action([plain, { ...plain, created: true }]) })).toBe(true);
    expect(frameworkCardShows({ resolved: action([plain], { argv: ['cat', 'docs/a.md'], executable: '/usr/bin/cat', cwd: { ...plain, requested: '.', path: '.', real: '.' }, arguments: [plain] }) })).toBe(true);
  });

  it('does not stand for a link, a hard link or a protected path, as a file or as a command argument or folder', () => {
    for (const flag of ['linkTraversal', 'hardLinked', 'protected'] as const) {
      const hidden = { ...plain, [flag]: true };
      expect(frameworkCardShows({ resolved: action([hidden]) })).toBe(false);
      expect(frameworkCardShows({ resolved: action([plain], { argv: ['cat', 'x'], executable: undefined, cwd: plain, arguments: [hidden] }) })).toBe(false);
      expect(frameworkCardShows({ resolved: action([plain], { argv: ['cat', 'x'], executable: undefined, cwd: hidden }) })).toBe(false);
    }
    expect(frameworkCardShows({ resolved: action([plain], { argv: ['cat'], executable: undefined, cwd: plain, tooManyArguments: true }) })).toBe(false);
  });
});
