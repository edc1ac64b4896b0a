import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFsJail } from './fs-jail.js';
import { credentialPaths } from './system-credential-paths.js';

const STORES = ['.ssh', '.codex', '.docker/config.json'];

describe('credentialPaths', () => {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-cred-')));
  const credentials = credentialPaths(workspace, '/srv/gateway-home', STORES, false);

  it("reads the system's secrets by absolute real path, at any case, with what is inside", () => {
    for (const secret of [
      '/etc/shadow',
      '/etc/GSHADOW',
      '/etc/sudoers.d/90-cloud-init-users',
      '/etc/ssh/ssh_host_ed25519_key',
      '/etc/kubernetes/admin.conf',
      '/var/run/secrets/kubernetes.io/serviceaccount/token',
      '/run/secrets/db_password',
      '/run/credentials/app.service/token',
      '/var/lib/cloud/instance/user-data.txt',
      '/etc/letsencrypt/live/example.com/privkey.pem',
      '/etc/ssl/private/ssl-cert-snakeoil.key',
      '/var/lib/docker/containers/x/config.v2.json',
    ]) {
      expect(credentials.matches(secret), secret).toBe(true);
    }
  });

  it('leaves what only looks like them open: public host keys, ordinary system files, a workspace folder of the same name', () => {
    for (const open of ['/etc/ssh/ssh_host_ed25519_key.pub', '/etc/ssh/ssh_config', '/etc/passwd', '/etc/hostname', '/home/alice/notes.md', '/etc/shadowsocks.json', path.join(workspace, 'etc/shadow')]) {
      expect(credentials.matches(open), open).toBe(false);
    }
  });

  it("masks every home's stores, the gateway's, root's and each of /home, as they are on disk", () => {
    expect(credentials.places).toEqual(expect.arrayContaining(['/srv/gateway-home/.ssh', '/root/.codex', '/root/.docker/config.json']));
    expect(credentials.places).not.toContain('/home/*/.ssh');
    expect(credentials.matches('/root/.codex/auth.json')).toBe(false);
  });

  it("in the full tier protects every home's stores as well, leaving out one that holds the workspace", () => {
    const full = credentialPaths('/root/.codex/projects/app', '/srv/gateway-home', STORES, true);
    for (const store of ['/srv/gateway-home/.codex/auth.json', '/root/.docker/config.json', '/home/alice/.codex/auth.json']) expect(full.matches(store), store).toBe(true);
    expect(full.matches('/root/.codex/projects/app/src/a.ts')).toBe(false);
    expect(full.matches('/home/alice/notes.md')).toBe(false);
  });

  it('reads a home whose name holds glob characters as that name', () => {
    const odd = credentialPaths(workspace, '/srv/user[1]', STORES, true);
    expect(odd.places).toContain('/srv/user[1]/.codex');
    expect(odd.matches('/srv/user[1]/.codex/auth.json')).toBe(true);
    expect(odd.matches('/srv/user1/.codex/auth.json')).toBe(false);
  });

  it('leaves out an entry that holds the workspace, which would otherwise be protected and masked whole', () => {
    const inside = credentialPaths('/var/lib/docker/volumes/app/_data', '/root', STORES, true);
    expect(inside.matches('/var/lib/docker/volumes/app/_data/src/a.ts')).toBe(false);
    expect(inside.matches('/etc/shadow')).toBe(true);
    expect(inside.places).not.toContain('/var/lib/docker');
  });

  it('the jail classifies them as protected in the full tier, the real path deciding', () => {
    const jail = createFsJail({ workspace, scope: 'full', protectedPaths: [], hostPaths: [], isCredential: credentials.matches });
    expect(jail.classify('/etc/shadow')).toBe('protected');
    expect(jail.classify('/ETC/Shadow')).toBe('protected');
    expect(jail.classify('/etc/hostname')).toBe('open');
  });
});
