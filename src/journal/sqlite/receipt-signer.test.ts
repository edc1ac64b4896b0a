import { mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadReceiptSigner, SIGNING_KEY_FILE } from './receipt-signer.js';

describe('loadReceiptSigner', () => {
  it('makes no key through a key folder that is a link, and makes one in a folder of its own', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-key-folder-')));
    mkdirSync(join(base, 'published'));
    symlinkSync(join(base, 'published'), join(base, 'keys'));
    expect(() => loadReceiptSigner(join(base, 'keys'))).toThrow(/signing key.*is not a folder/);
    expect(readdirSync(join(base, 'published'))).toEqual([]);
    expect(loadReceiptSigner(join(base, 'own', 'keys')).keyCreated).toBe(true);
    expect(readdirSync(join(base, 'own', 'keys'))).toEqual([SIGNING_KEY_FILE]);
  });
});
