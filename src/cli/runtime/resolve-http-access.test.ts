import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { httpTokenPath, resolveHttpAccess } from './resolve-http-access.js';

const TOKEN = 'a-token-the-user-keeps-0123456789';

function config() {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-http-access-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), '{}');
  return loadConfig(workspace);
}

function secret(content: string, mode = 0o600): string {
  const file = join(mkdtempSync(join(tmpdir(), 'toolgate-secret-')), 'token');
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}

describe('resolveHttpAccess', () => {
  it('generates one token per workspace and reuses it while the file stays private', () => {
    const resolved = config();
    const first = resolveHttpAccess(resolved, {});
    expect(first).toMatchObject({ kind: 'token', from: 'generated', file: httpTokenPath(resolved) });
    const token = first.kind === 'token' ? first.token : '';
    expect(readFileSync(httpTokenPath(resolved), 'utf8')).toBe(`${token}\n`);
    expect(statSync(httpTokenPath(resolved)).mode & 0o777).toBe(0o600);
    expect(resolveHttpAccess(resolved, {})).toEqual({ kind: 'token', token, from: 'saved', file: httpTokenPath(resolved) });
  });

  it('replaces a workspace token file that is short, or a FIFO, instead of trusting or waiting on it', () => {
    const resolved = config();
    mkdirSync(join(resolved.workspace, '.toolgate'));
    writeFileSync(httpTokenPath(resolved), 'short', { mode: 0o600 });
    expect(resolveHttpAccess(resolved, {})).toMatchObject({ from: 'generated', replaced: expect.stringContaining('at least 16') as unknown });

    const fifo = config();
    mkdirSync(join(fifo.workspace, '.toolgate'));
    execFileSync('mkfifo', [httpTokenPath(fifo)]);
    expect(resolveHttpAccess(fifo, {})).toMatchObject({ from: 'generated', replaced: expect.stringContaining('not a regular file') as unknown });
    expect(statSync(httpTokenPath(fifo)).isFile()).toBe(true);
  });

  it('prefers --token-file, then TOOLGATE_TOKEN, and trims them', () => {
    const resolved = config();
    const file = secret(`  ${TOKEN}\n`);
    expect(resolveHttpAccess(resolved, { tokenFile: file, environment: 'the-environment-one-0123456789' })).toEqual({ kind: 'token', token: TOKEN, from: 'token-file', file });
    expect(resolveHttpAccess(resolved, { environment: `${TOKEN}\n` })).toEqual({ kind: 'token', token: TOKEN, from: 'environment' });
  });

  it('follows a link the user gives to a private file, but judges the file it reaches', () => {
    const target = secret(TOKEN);
    const link = join(mkdtempSync(join(tmpdir(), 'toolgate-secret-')), 'link');
    symlinkSync(target, link);
    expect(resolveHttpAccess(config(), { tokenFile: link })).toMatchObject({ token: TOKEN });
    const open = secret(TOKEN, 0o604);
    const openLink = join(mkdtempSync(join(tmpdir(), 'toolgate-secret-')), 'link');
    symlinkSync(open, openLink);
    expect(() => resolveHttpAccess(config(), { tokenFile: openLink })).toThrow(/others/);
  });

  it('refuses a token that cannot be trusted or sent: group-writable, a FIFO, oversized, or not printable ASCII', () => {
    const resolved = config();
    expect(() => resolveHttpAccess(resolved, { tokenFile: secret(TOKEN, 0o620) })).toThrow(/mode 0620/);
    const fifo = join(mkdtempSync(join(tmpdir(), 'toolgate-secret-')), 'fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    expect(() => resolveHttpAccess(resolved, { tokenFile: fifo })).toThrow(/not a regular file/);
    expect(() => resolveHttpAccess(resolved, { tokenFile: secret('x'.repeat(5000)) })).toThrow(/larger than a token/);
    expect(() => resolveHttpAccess(resolved, { environment: 'with a space in the middle of it' })).toThrow(/printable ASCII/);
    expect(() => resolveHttpAccess(resolved, { environment: `${TOKEN}\u00e9` })).toThrow(/printable ASCII/);
  });

  // Only root can give a file away; as anyone else, no other user's file is both private and readable.
  it.runIf(process.getuid?.() === 0)('refuses a private token file that belongs to another user, and replaces such a workspace file', () => {
    const foreign = secret(TOKEN);
    chownSync(foreign, 65534, 65534);
    expect(() => resolveHttpAccess(config(), { tokenFile: foreign })).toThrow(/another user/);
    const resolved = config();
    mkdirSync(join(resolved.workspace, '.toolgate'));
    writeFileSync(httpTokenPath(resolved), TOKEN, { mode: 0o600 });
    chownSync(httpTokenPath(resolved), 65534, 65534);
    expect(resolveHttpAccess(resolved, {})).toMatchObject({ from: 'generated', replaced: expect.stringContaining('another user') as unknown });
    expect(statSync(httpTokenPath(resolved)).uid).toBe(0);
  });

  it('--no-token asks for nothing, and contradicts any token', () => {
    const resolved = config();
    expect(resolveHttpAccess(resolved, { noToken: true })).toEqual({ kind: 'none' });
    expect(() => resolveHttpAccess(resolved, { noToken: true, tokenFile: secret(TOKEN) })).toThrow(/--token-file/);
    expect(() => resolveHttpAccess(resolved, { noToken: true, environment: TOKEN })).toThrow(/TOOLGATE_TOKEN/);
  });
});
