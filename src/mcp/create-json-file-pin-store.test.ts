import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFilePinStore } from './create-json-file-pin-store.js';
import type { McpPin } from './pin-store.js';

const pin = (tool: string, digest = 'a'.repeat(64)): McpPin => ({ server: 's', tool, digest, approvedAt: '2026-01-01T00:00:00.000Z', approvedBy: 'test' });

async function tempFile(content?: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'toolgate-pinstore-')), 'nested', 'pins.json');
  if (content !== undefined) {
    await writeFile(join(file, '..', '..', 'pins.json'), content);
    return join(file, '..', '..', 'pins.json');
  }
  return file;
}

describe('createJsonFilePinStore', () => {
  it('starts empty when the file does not exist, and writes it private (0600)', async () => {
    const file = await tempFile();
    const store = createJsonFilePinStore(file);
    expect(await store.get('s', 'a')).toBeUndefined();
    await store.set(pin('a'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await createJsonFilePinStore(file).get('s', 'a')).toEqual(pin('a'));
  });

  it('serialises concurrent approvals so none is lost', async () => {
    const file = await tempFile();
    const store = createJsonFilePinStore(file);
    await Promise.all(Array.from({ length: 20 }, (_, index) => store.set(pin(`t${index}`))));
    const saved = JSON.parse(await readFile(file, 'utf8')) as { pins: McpPin[] };
    expect(saved.pins).toHaveLength(20);
  });

  it.each([
    ['not JSON', '{'],
    ['a wrong version', '{"version":2,"pins":[]}'],
    ['a malformed digest', JSON.stringify({ version: 1, pins: [{ ...pin('a'), digest: 'nothex' }] })],
    ['a pin missing fields', '{"version":1,"pins":[{"server":"s"}]}'],
    ['null', 'null'],
  ])('refuses a file holding %s instead of reading it as empty', async (_label, content) => {
    const store = createJsonFilePinStore(await tempFile(content));
    await expect(store.get('s', 'a')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });
});
