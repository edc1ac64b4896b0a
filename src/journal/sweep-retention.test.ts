import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sweepRetention } from './sweep-retention.js';

let dir: string;
const DAY = 86_400_000;
const now = Date.now();
const old = (now - 10 * DAY) / 1000;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-sweep-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(path: string, content: string, aged: boolean): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  if (aged) utimesSync(path, old, old);
}

describe('sweepRetention', () => {
  it('removes old runs whole and old media files one by one, keeping anything recent', () => {
    const spills = join(dir, 'spills');
    const media = join(dir, 'media');
    file(join(spills, 'run-old', 'a.txt'), 'aaaa', true);
    file(join(spills, 'run-old', 'b.txt'), 'bb', true);
    utimesSync(join(spills, 'run-old'), old, old);
    file(join(spills, 'run-mixed', 'old.txt'), 'x', true);
    file(join(spills, 'run-mixed', 'new.txt'), 'y', false);
    file(join(media, 'ab', 'abcd'), '123456', true);
    file(join(media, 'ab', 'abef'), '1', false);
    file(join(media, 'cd', 'cdef'), '12', true);
    utimesSync(join(media, 'cd'), old, old);
    const result = sweepRetention({ directories: [{ path: spills, layout: 'runs' }, { path: media, layout: 'files' }, { path: join(dir, 'absent'), layout: 'runs' }], retentionMs: 7 * DAY, now });
    expect([...result.removed].sort()).toEqual(['ab/abcd', 'cd/cdef', 'run-old']);
    expect(result.freedBytes).toBe(4 + 2 + 6 + 2);
    expect(existsSync(join(spills, 'run-mixed', 'old.txt'))).toBe(true);
    expect(existsSync(join(media, 'ab', 'abef'))).toBe(true);
    expect(existsSync(join(media, 'cd'))).toBe(false);
  });

  it('never follows a symlink out of the swept directory', () => {
    const spills = join(dir, 'spills');
    const outside = join(dir, 'precious.txt');
    file(outside, 'keep me', true);
    mkdirSync(join(spills, 'run-old'), { recursive: true });
    symlinkSync(outside, join(spills, 'run-old', 'link'));
    symlinkSync(dir, join(spills, 'run-old', 'dirlink'));
    utimesSync(join(spills, 'run-old'), old, old);
    const media = join(dir, 'media');
    mkdirSync(media);
    symlinkSync(outside, join(media, 'link'));
    sweepRetention({ directories: [{ path: spills, layout: 'runs' }, { path: media, layout: 'files' }], retentionMs: 0, now: now + DAY });
    expect(existsSync(join(spills, 'run-old'))).toBe(false);
    expect(existsSync(outside)).toBe(true);
  });

  it('refuses a filesystem root, a non-directory and a bad retention', () => {
    expect(() => sweepRetention({ directories: [{ path: '/', layout: 'runs' }], retentionMs: DAY })).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
    file(join(dir, 'f'), 'x', false);
    expect(() => sweepRetention({ directories: [{ path: join(dir, 'f'), layout: 'runs' }], retentionMs: DAY })).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
    expect(() => sweepRetention({ directories: [], retentionMs: -1 })).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
  });
});
