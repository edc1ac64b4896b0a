import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMediaStore } from './create-media-store.js';

describe('createMediaStore', () => {
  it('returns the bytes a handle names, and nothing else', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'toolgate-media-'));
    const store = createMediaStore(directory);
    const handle = await store.put(new TextEncoder().encode('png bytes'), 'image/png');
    expect(await store.get(handle.handle)).toMatchObject({ mediaType: 'image/png' });
    const digest = handle.handle.slice('media:sha256:'.length);
    // Bytes changed on disk no longer hash to the handle.
    writeFileSync(path.join(directory, digest), 'tampered');
    expect(await store.get(handle.handle)).toBeUndefined();
    // A link planted under a handle's name is not followed.
    const secret = path.join(directory, '..', `secret-${digest.slice(0, 8)}`);
    writeFileSync(secret, 'SECRET');
    rmSync(path.join(directory, digest));
    symlinkSync(secret, path.join(directory, digest));
    expect(await store.get(handle.handle)).toBeUndefined();
  });

  it('has made its folder by the time it is returned, so a host closed at once removes a complete spill folder', () => {
    const spill = mkdtempSync(path.join(tmpdir(), 'toolgate-media-'));
    createMediaStore(path.join(spill, 'media'));
    expect(existsSync(path.join(spill, 'media'))).toBe(true);
    rmSync(spill, { recursive: true });
    expect(existsSync(spill)).toBe(false);
  });
});
