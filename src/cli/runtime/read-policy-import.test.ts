import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POLICY_IMPORT_MAX_BYTES, readPolicyImport } from './read-policy-import.js';

const folder = (): string => mkdtempSync(join(tmpdir(), 'toolgate-read-import-'));

describe('readPolicyImport', () => {
  it('returns the text and the digest of the very bytes read, a byte-order mark dropped from the text only', async () => {
    const file = join(folder(), 'settings.json');
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"permissions":{}}\n')]);
    writeFileSync(file, bytes);
    expect(await readPolicyImport(file)).toEqual({ text: '{"permissions":{}}\n', sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('refuses what is not a regular file: a FIFO (which would block the start), a link to /dev/zero, a folder', async () => {
    const dir = folder();
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    symlinkSync('/dev/zero', join(dir, 'zero.json'));
    for (const name of ['fifo.json', 'zero.json', '.']) await expect(readPolicyImport(join(dir, name))).rejects.toThrow('is not a regular file');
  });

  it('refuses a file past the bound, bytes that are not UTF-8, and a missing file', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'huge.json'), Buffer.alloc(POLICY_IMPORT_MAX_BYTES + 1, 0x20));
    writeFileSync(join(dir, 'latin1.json'), Buffer.from('{"permissions":{"deny":["Read(caf\xe9)"]}}', 'latin1'));
    await expect(readPolicyImport(join(dir, 'huge.json'))).rejects.toThrow(`is larger than ${String(POLICY_IMPORT_MAX_BYTES)} bytes`);
    await expect(readPolicyImport(join(dir, 'latin1.json'))).rejects.toThrow('is not UTF-8');
    await expect(readPolicyImport(join(dir, 'missing.json'))).rejects.toThrow('cannot be read');
  });
});
