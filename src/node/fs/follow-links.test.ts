import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { followLinks } from './follow-links.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-follow-')));
  made.push(root);
  return root;
}

describe('followLinks', () => {
  it('reads each link where it really lies: `..` in its text from its real folder, not the spelling that reached it', () => {
    const root = folder();
    mkdirSync(path.join(root, 'kit/tools'), { recursive: true });
    mkdirSync(path.join(root, 'hookfiles'));
    writeFileSync(path.join(root, 'hookfiles/pre-commit'), '');
    symlinkSync('kit/tools', path.join(root, 'tools'));
    symlinkSync('../hooks', path.join(root, 'kit/tools/hooks'));
    symlinkSync('../hookfiles', path.join(root, 'kit/hooks'));
    expect(followLinks(path.join(root, 'tools/hooks/pre-commit'))).toEqual({
      target: path.join(root, 'hookfiles/pre-commit'),
      links: [path.join(root, 'tools'), path.join(root, 'kit/tools/hooks'), path.join(root, 'kit/hooks')],
    });
  });

  it('goes on through names not made yet, and through links that lead nowhere yet, as a write would', () => {
    const root = folder();
    symlinkSync('config/dev.env', path.join(root, '.env'));
    symlinkSync('private', path.join(root, 'config'));
    expect(followLinks(path.join(root, '.env'))).toEqual({ target: path.join(root, 'private/dev.env'), links: [path.join(root, '.env'), path.join(root, 'config')] });
    expect(followLinks(path.join(root, 'a/b/../c')).target).toBe(path.join(root, 'a/c'));
  });

  it('follows an absolute text from the root, and gives up on a loop', () => {
    const root = folder();
    symlinkSync(path.join(root, 'real'), path.join(root, 'abs'));
    expect(followLinks(path.join(root, 'abs/x')).target).toBe(path.join(root, 'real/x'));
    symlinkSync('loop-b', path.join(root, 'loop-a'));
    symlinkSync('loop-a', path.join(root, 'loop-b'));
    const loop = followLinks(path.join(root, 'loop-a'));
    expect(loop.target).toBeUndefined();
    expect(new Set(loop.links)).toEqual(new Set([path.join(root, 'loop-a'), path.join(root, 'loop-b')]));
  });
});
