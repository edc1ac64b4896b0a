import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { signingKeyFingerprint } from '../../journal/sqlite/receipt-signer.js';
import { stateRecord } from './state-record.js';
import { createSqliteJournal } from '../../journal/sqlite/create-sqlite-journal.js';
import { signingKeyToVerify, vouchSigningKey } from './vouch-signing-key.js';

const newKey = (): string => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function setup() {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-vouch-key-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ journal: { sign: true } }));
  const key = join(workspace, '.toolgate', 'keys', 'journal-ed25519.pem');
  mkdirSync(join(workspace, '.toolgate', 'keys'), { recursive: true, mode: 0o700 });
  const pem = newKey();
  writeFileSync(key, pem, { mode: 0o600 });
  return { config: loadConfig(workspace), home: mkdtempSync(join(tmpdir(), 'toolgate-vouch-key-home-')), key, pem };
}

describe('signingKeyToVerify', () => {
  it('reads the key once and says whether this user vouches for it, by the fingerprint trust-key shows', () => {
    const { config, home, key, pem } = setup();
    expect(signingKeyToVerify(config, home)).toEqual({ file: key, pem, fingerprint: signingKeyFingerprint(pem), trusted: false });
    stateRecord(config, home, 'journal-keys.json').remember(key, pem);
    expect(signingKeyToVerify(config, home)).toMatchObject({ pem, trusted: true });
  });

  it('refuses a key that is a link, even to a key this user vouches for, and a missing key, as configuration errors', () => {
    const { config, home, key, pem } = setup();
    stateRecord(config, home, 'journal-keys.json').remember(key, pem);
    const elsewhere = join(home, 'key.pem');
    renameSync(key, elsewhere);
    expect(() => signingKeyToVerify(config, home)).toThrow(expect.objectContaining({ kind: 'config', message: expect.stringContaining('cannot be read') as unknown }));
    symlinkSync(elsewhere, key);
    expect(() => signingKeyToVerify(config, home)).toThrow(expect.objectContaining({ kind: 'config', message: expect.stringContaining('not a link') as unknown }));
  });
});

describe('vouchSigningKey', () => {
  const openSigned = (config: ReturnType<typeof loadConfig>) => createSqliteJournal(config.journal.path, { sign: true, onUnresolved: () => undefined });

  it('records the key the open made, and uses it again at the next open', () => {
    const { config, home, key } = setup();
    rmSync(key);
    const vouch = vouchSigningKey(config, home);
    const journal = openSigned(config);
    try {
      vouch(journal);
    } finally {
      journal.close();
    }
    expect(signingKeyToVerify(config, home).trusted).toBe(true);
    const again = openSigned(config);
    try {
      expect(() => vouchSigningKey(config, home)(again)).not.toThrow();
    } finally {
      again.close();
    }
  });

  it('does not record a key planted between the check and the open, which the open found and did not make', () => {
    const { config, home, key } = setup();
    rmSync(key);
    const vouch = vouchSigningKey(config, home);
    writeFileSync(key, newKey(), { mode: 0o600 });
    const journal = openSigned(config);
    try {
      expect(() => vouch(journal)).toThrow(expect.objectContaining({ kind: 'config', message: expect.stringContaining('not created by this user') as unknown }));
    } finally {
      journal.close();
    }
    expect(signingKeyToVerify(config, home).trusted).toBe(false);
  });

  it('refuses a journal that opened another key than the one vouched for (swapped between the two)', () => {
    const { config, home, key, pem } = setup();
    stateRecord(config, home, 'journal-keys.json').remember(key, pem);
    const vouch = vouchSigningKey(config, home);
    writeFileSync(key, newKey(), { mode: 0o600 });
    const journal = openSigned(config);
    try {
      expect(() => vouch(journal)).toThrow(expect.objectContaining({ kind: 'config' }));
    } finally {
      journal.close();
    }
  });
});
