import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { recordFile, stateRecord } from './state-record.js';

function setup() {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-state-record-'));
  writeFileSync(join(workspace, 'toolgate.config.json'), '{}');
  return { config: loadConfig(workspace), home: mkdtempSync(join(tmpdir(), 'toolgate-state-record-home-')), workspace };
}

describe('stateRecord', () => {
  it('vouches, by path, only for the text remembered there, until it is forgotten', () => {
    const { config, home, workspace } = setup();
    const record = stateRecord(config, home, 'console-locators.json');
    const file = join(workspace, '.toolgate', 'console.json');
    expect(record.vouches(file, 'a')).toBe(false);
    record.remember(file, 'a');
    expect(record.vouches(file, 'a')).toBe(true);
    expect(record.vouches(file, 'b')).toBe(false);
    expect(record.vouches(join(workspace, 'elsewhere.json'), 'a')).toBe(false);
    expect(stateRecord(config, mkdtempSync(join(tmpdir(), 'toolgate-state-record-home-')), 'console-locators.json').vouches(file, 'a')).toBe(false);
    record.forget(file);
    expect(record.vouches(file, 'a')).toBe(false);
    // Private to the user, and rewritten under a lock that is gone once the rewrite is done.
    const written = join(home, '.config', 'toolgate', 'console-locators.json');
    expect(statSync(written).mode & 0o777).toBe(0o600);
    expect(existsSync(`${written}.lock`)).toBe(false);
  });

  it('vouches for a signing key by its text wherever it now lies, and for no other key', () => {
    const { config, home, workspace } = setup();
    const record = stateRecord(config, home, 'journal-keys.json');
    record.remember(join(workspace, 'keys', 'key.pem'), 'KEY');
    expect(record.vouches(join(tmpdir(), 'moved', 'key.pem'), 'KEY')).toBe(true);
    expect(record.vouches(join(workspace, 'keys', 'key.pem'), 'OTHER')).toBe(false);
  });

  it('runs an exclusive action, a rewrite inside it, and leaves the action\'s own errors its own, not the folder\'s', () => {
    const { config, home } = setup();
    const record = recordFile(config, home, 'journals.json');
    expect(record.exclusively(() => (record.rewrite((entries) => (entries.a = { rows: 1 })), 'made'))).toBe('made');
    expect(record.read()).toEqual({ a: { rows: 1 } });
    const missing = Object.assign(new Error('no such file'), { code: 'ENOENT' });
    expect(() => record.exclusively(() => {
      throw missing;
    })).toThrow(missing);
    expect(existsSync(join(home, '.config', 'toolgate', 'journals.json.exclusive.lock'))).toBe(false);
  });

  it('vouches for nothing when the record is not JSON', () => {
    const { config, home, workspace } = setup();
    const record = stateRecord(config, home, 'http-tokens.json');
    record.remember(join(workspace, 'token'), 't');
    writeFileSync(join(home, '.config', 'toolgate', 'http-tokens.json'), 'not json');
    expect(record.vouches(join(workspace, 'token'), 't')).toBe(false);
  });
});
