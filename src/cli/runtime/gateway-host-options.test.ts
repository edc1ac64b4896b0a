import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorPathFor } from '../../journal/sqlite/index.js';
import { loadConfig } from '../config/load-config.js';
import { CliError } from '../cli-error.js';
import { keyFileOf } from './open-journal-to-read.js';
import { gatewayHostOptions, gatewaySpillDir, prepareGatewayStateFolder, prepareUserStateFolder } from './gateway-host-options.js';

function configWith(file: unknown) {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-host-options-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify(file));
  return loadConfig(workspace);
}

describe('gatewayHostOptions', () => {
  it("refuses the journal, its side files, its anchor, its signing key, the state directory, the configuration file and the user's remembered rules to every tool", () => {
    const config = configWith({});
    const journal = config.journal.path;
    const userState = join('/home/someone', '.config', 'toolgate');
    const own = [`${journal}-wal`, `${journal}-shm`, `${journal}-journal`, anchorPathFor(journal), keyFileOf(journal)];
    expect(gatewayHostOptions(config, '/home/someone').privatePaths).toEqual(['.toolgate', journal, ...own, config.file, userState]);
    // A file the command line named (the token `serve --token-file` reads) is refused the same way.
    expect(gatewayHostOptions(config, '/home/someone', ['/srv/token']).privatePaths).toEqual(['.toolgate', journal, ...own, config.file, userState, '/srv/token']);
  });

  it("creates the user's state folder, so the sandbox has a folder to mask before a command could create it", () => {
    const home = mkdtempSync(join(tmpdir(), 'toolgate-host-options-home-'));
    prepareUserStateFolder(configWith({}), home);
    expect(statSync(join(home, '.config', 'toolgate')).isDirectory()).toBe(true);
    // A home where the folder cannot be made (here a file) is left as it is: a command of the same user cannot make it either.
    writeFileSync(join(home, 'file'), '');
    expect(() => prepareUserStateFolder(configWith({}), join(home, 'file'))).not.toThrow();
  });

  it("creates the workspace's state folder, and refuses one that is a link or a file", () => {
    const config = configWith({});
    const folder = join(config.workspace, '.toolgate');
    expect(prepareGatewayStateFolder(config)).toBe(folder);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(prepareGatewayStateFolder(config)).toBe(folder);
    const elsewhere = mkdtempSync(join(tmpdir(), 'toolgate-host-options-elsewhere-'));
    for (const plant of [(at: string) => symlinkSync(elsewhere, at), (at: string) => symlinkSync(join(elsewhere, 'missing'), at), (at: string) => writeFileSync(at, '')]) {
      const planted = configWith({});
      plant(join(planted.workspace, '.toolgate'));
      expect(() => prepareGatewayStateFolder(planted)).toThrow(CliError);
    }
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("ignores the state folder in the repository: a .gitignore of `*`, never one the user has, never through a link", () => {
    const config = configWith({});
    const folder = prepareGatewayStateFolder(config);
    expect(readFileSync(join(folder, '.gitignore'), 'utf8')).toBe('*\n');
    writeFileSync(join(folder, '.gitignore'), 'journal.db\n');
    prepareGatewayStateFolder(config);
    expect(readFileSync(join(folder, '.gitignore'), 'utf8')).toBe('journal.db\n');
    const planted = configWith({});
    const target = join(mkdtempSync(join(tmpdir(), 'toolgate-host-options-target-')), 'profile');
    mkdirSync(join(planted.workspace, '.toolgate'), { mode: 0o700 });
    symlinkSync(target, join(planted.workspace, '.toolgate', '.gitignore'));
    prepareGatewayStateFolder(planted);
    expect(existsSync(target)).toBe(false);
  });

  it('jails the host to the workspace at the configured scope, spilling under the state directory', () => {
    const config = configWith({ scope: 'read-only' });
    const options = gatewayHostOptions(config);
    expect(options).toMatchObject({ workspace: config.workspace, scope: 'read-only', spillDir: join(config.workspace, '.toolgate', 'spill') });
    expect(options.spillDir).toBe(gatewaySpillDir(config));
  });

  it('takes the protected paths, the mask-walk limits and the spill stores\' budgets the configuration sets, and no limit it leaves out', () => {
    const limits = { maskWalkEntries: 10, maskWalkMilliseconds: 5, maxSpillBytes: 1024, maxMediaStoreBytes: 0 };
    const set = gatewayHostOptions(configWith({ policy: { protectedPaths: ['secrets/**'], readableProtectedPaths: ['.env.example'] }, limits }));
    expect(set).toMatchObject({ protectedPaths: ['secrets/**'], readableProtectedPaths: ['.env.example'], maskWalkLimit: { entries: 10, milliseconds: 5 }, maxSpillBytes: 1024, maxMediaStoreBytes: 0 });
    const unset = gatewayHostOptions(configWith({}));
    expect(unset).toMatchObject({ protectedPaths: [], readableProtectedPaths: [], maskWalkLimit: {} });
    expect(unset).not.toHaveProperty('maxSpillBytes');
    expect(unset).not.toHaveProperty('maxMediaStoreBytes');
  });

  it('protects the policy files the configuration imports, by their absolute paths, inside the workspace and out', () => {
    const config = configWith({ policy: { protectedPaths: ['secrets/**'], imports: [{ from: 'claude', path: 'config/team[prod].json' }, { from: 'gemini', path: '/srv/policies/team.toml' }] } });
    expect(gatewayHostOptions(config).protectedPaths).toEqual(['secrets/**', join(config.workspace, 'config/team[prod].json'), '/srv/policies/team.toml']);
  });

  it('protects the files of the workspace the configuration starts as upstream servers, which run outside the sandbox', () => {
    const config = configWith({ servers: { notes: { command: 'node', args: ['servers/notes.mjs'] }, fs: { command: 'npx', args: ['-y', '/usr/lib/server.js', '.'] } } });
    expect(gatewayHostOptions(config).protectedPaths).toEqual([join(config.workspace, 'servers/notes.mjs')]);
  });
});
