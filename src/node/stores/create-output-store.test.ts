import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOutputStore } from './create-output-store.js';

const limits = { maxBytes: 10, maxLines: 1 };

describe('createOutputStore', () => {
  it('reads back what it spilled, by handle', async () => {
    const store = createOutputStore(mkdtempSync(path.join(tmpdir(), 'toolgate-spill-')));
    const spilled = await store.spill('the whole output', limits, undefined, 'run-1');
    expect(await store.read(spilled.handle)).toBe('the whole output');
  });

  it('never reads outside a run folder, nor through a link', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'toolgate-spill-'));
    const directory = path.join(base, 'runs');
    const store = createOutputStore(directory);
    const spilled = await store.spill('mine', limits, undefined, 'run-1');
    const name = spilled.handle.split('/')[1] ?? '';
    writeFileSync(path.join(base, name), 'outside the runs folder');
    expect(await store.read(`spill:../${name}`)).toBeUndefined();
    expect(await store.read(`spill:./${name}`)).toBeUndefined();
    const secret = path.join(base, 'secret.txt');
    writeFileSync(secret, 'SECRET');
    const planted = 'a'.repeat(24);
    symlinkSync(secret, path.join(directory, 'run-1', planted));
    expect(await store.read(`spill:run-1/${planted}`)).toBeUndefined();
  });

  it('keeps its own folders apart from any run id: ending run "no-run" leaves spills without a run', async () => {
    const store = createOutputStore(mkdtempSync(path.join(tmpdir(), 'toolgate-spill-')));
    const anonymous = await store.spill('no run', limits, undefined, undefined);
    const hashed = await store.spill('odd id', limits, undefined, 'a run id with spaces');
    await store.endRun('no-run');
    await store.endRun(hashed.handle.slice('spill:@'.length).split('/')[0] ?? '');
    expect(await store.read(anonymous.handle)).toBe('no run');
    expect(await store.read(hashed.handle)).toBe('odd id');
  });

  it('keeps at most maxBytes: the oldest spills go first, side-by-side spills share the budget, and one past it is refused', async () => {
    const store = createOutputStore(mkdtempSync(path.join(tmpdir(), 'toolgate-spill-')), { maxBytes: 25 });
    const first = await store.spill('a'.repeat(10), limits, undefined, 'run-1');
    const second = await store.spill('b'.repeat(10), limits, undefined, 'run-1');
    const third = await store.spill('c'.repeat(10), limits, undefined, 'run-2');
    expect(await store.read(first.handle)).toBeUndefined();
    expect(await store.read(second.handle)).toBe('b'.repeat(10));
    expect(await store.read(third.handle)).toBe('c'.repeat(10));
    const together = await Promise.allSettled(['d', 'e', 'f'].map((letter) => store.spill(letter.repeat(10), limits, undefined, 'run-2')));
    const kept = await Promise.all(together.map((result) => (result.status === 'fulfilled' ? store.read(result.value.handle) : Promise.resolve(undefined))));
    expect(kept.filter((text) => text !== undefined).length).toBeLessThanOrEqual(2);
    await expect(store.spill('g'.repeat(26), limits, undefined, 'run-2')).rejects.toMatchObject({ code: 'TOOL_UNAVAILABLE' });
    // Ending a run gives its bytes back: two more spills fit beside nothing else.
    await store.endRun('run-2');
    const after = [await store.spill('h'.repeat(10), limits, undefined, 'run-3'), await store.spill('i'.repeat(10), limits, undefined, 'run-3')];
    expect(await Promise.all(after.map((spilled) => store.read(spilled.handle)))).toEqual(['h'.repeat(10), 'i'.repeat(10)]);
  });

  it('refuses a result larger than the whole budget without removing the spills it keeps', async () => {
    const store = createOutputStore(mkdtempSync(path.join(tmpdir(), 'toolgate-spill-')), { maxBytes: 25 });
    const kept = await store.spill('a'.repeat(10), limits, undefined, 'run-1');
    await expect(store.spill('z'.repeat(26), limits, undefined, 'run-1')).rejects.toMatchObject({ code: 'TOOL_UNAVAILABLE' });
    expect(await store.read(kept.handle)).toBe('a'.repeat(10));
  });
});
