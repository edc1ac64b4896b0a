import { describe, expect, it } from 'vitest';
import { createPathLocks } from './path-locks.js';

/** Whether `promise` has settled after the queued work of this turn ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('createPathLocks', () => {
  it('lets one holder hold a path at a time, the next in the order they asked', async () => {
    const locks = createPathLocks();
    const first = await locks.acquire(['/w/run.sh']);
    const second = locks.acquire(['/w/run.sh']);
    const third = locks.acquire(['/w/run.sh']);
    expect(await settled(second)).toBe(false);
    first();
    const releaseSecond = await second;
    expect(await settled(third)).toBe(false);
    releaseSecond();
    (await third)();
  });

  it('does not hold other paths, and takes no time for none', async () => {
    const locks = createPathLocks();
    const held = await locks.acquire(['/w/a']);
    expect(await settled(locks.acquire(['/w/b']))).toBe(true);
    expect(await settled(locks.acquire([]))).toBe(true);
    held();
  });

  it('lets two holders of overlapping sets asked in opposite orders both through, in the order they asked', async () => {
    const locks = createPathLocks();
    const blocker = await locks.acquire(['/w/a', '/w/b']);
    const one = locks.acquire(['/w/a', '/w/b']);
    const other = locks.acquire(['/w/b', '/w/a']);
    blocker();
    (await one)();
    (await other)();
  });

  it('releases once: a second call does not let a later holder past the one after it', async () => {
    const locks = createPathLocks();
    const first = await locks.acquire(['/w/x']);
    const second = locks.acquire(['/w/x']);
    const third = locks.acquire(['/w/x']);
    first();
    first();
    await second;
    expect(await settled(third)).toBe(false);
  });
});
