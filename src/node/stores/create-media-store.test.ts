import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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

  it('keeps at most maxBytes of the media it stored, the oldest going first, the same bytes again made the newest', async () => {
    // Without a bound every new screenshot stayed, and an upstream called again and again filled the disk.
    const directory = mkdtempSync(path.join(tmpdir(), 'toolgate-media-'));
    // Each item costs its bytes and 8 KiB for its two files: room for three of 1,000 bytes.
    const store = createMediaStore(directory, { maxBytes: 3 * (1000 + 8192) });
    const media = (fill: number) => new Uint8Array(1000).fill(fill);
    const [first, second, third] = [await store.put(media(1), 'image/png'), await store.put(media(2), 'image/png'), await store.put(media(3), 'image/png')];
    // Stored again, the first is the newest: the second goes when a fourth comes.
    await store.put(media(1), 'image/png');
    const fourth = await store.put(media(4), 'image/png');
    expect(await store.get(second.handle)).toBeUndefined();
    for (const kept of [first, third, fourth]) expect(await store.get(kept.handle)).toMatchObject({ mediaType: 'image/png' });
    const bytes = readdirSync(directory).filter((name) => !name.endsWith('.type')).reduce((sum, name) => sum + statSync(path.join(directory, name)).size, 0);
    expect(bytes).toBe(3000);
    expect(readdirSync(directory)).toHaveLength(6);
  });

  it('refuses media larger than the whole budget, typed, and keeps what it held', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'toolgate-media-'));
    const store = createMediaStore(directory, { maxBytes: 15_000 });
    const kept = await store.put(new Uint8Array(1000).fill(7), 'image/png');
    await expect(store.put(new Uint8Array(10_000), 'image/png')).rejects.toMatchObject({ code: 'TOOL_UNAVAILABLE' });
    expect(await store.get(kept.handle)).toBeDefined();
  });

  it('shares the budget among puts side by side', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'toolgate-media-'));
    const store = createMediaStore(directory, { maxBytes: 4 * (1000 + 8192) });
    await Promise.all(Array.from({ length: 12 }, (_, index) => store.put(new Uint8Array(1000).fill(index), 'image/png')));
    await store.put(new Uint8Array(1000).fill(99), 'image/png');
    expect(readdirSync(directory).filter((name) => !name.endsWith('.type')).length).toBeLessThanOrEqual(4);
  });

  it('counts each item its two files, so media of a few bytes cannot fill the disk with files', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'toolgate-media-'));
    const store = createMediaStore(directory, { maxBytes: 10 * (8192 + 16) });
    for (let index = 0; index < 100; index += 1) await store.put(new TextEncoder().encode(`image ${index}`), 'image/png');
    expect(readdirSync(directory)).toHaveLength(20);
  });
});
