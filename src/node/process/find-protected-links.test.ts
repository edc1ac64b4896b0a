import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsJail } from '../fs/fs-jail.js';
import { findProtectedLinks } from './find-protected-links.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('findProtectedLinks', () => {
  it('finds the protected links and the links in protected folders, following none (a link to `/` is not walked)', () => {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-protected-links-')));
    made.push(root);
    mkdirSync(path.join(root, 'config'));
    mkdirSync(path.join(root, '.ssh'));
    writeFileSync(path.join(root, 'config', 'dev.secrets'), 'x\n');
    symlinkSync('config/dev.secrets', path.join(root, '.env'));
    symlinkSync('../config/dev.secrets', path.join(root, '.ssh', 'id_ed25519'));
    symlinkSync('/', path.join(root, 'vendor'));
    symlinkSync('config', path.join(root, 'plain-link'));
    const jail = createFsJail({ workspace: root, scope: 'workspace-write', protectedPaths: [], hostPaths: [] });
    expect(findProtectedLinks(jail, () => false)?.sort()).toEqual([path.join(root, '.env'), path.join(root, '.ssh', 'id_ed25519')]);
    // Within its bound only.
    expect(findProtectedLinks(jail, () => false, { entries: 2 })).toBeUndefined();
  });
});
