import { describe, expect, it } from 'vitest';
import { createCallGate } from './create-call-gate.js';

describe('createCallGate', () => {
  it('admits at most the limit at once, the rest in arrival order as places free', async () => {
    const gate = createCallGate(2);
    const signal = new AbortController().signal;
    const admitted: number[] = [];
    const entries = [0, 1, 2, 3, 4].map((index) => gate.enter(signal).then((ok) => ok && admitted.push(index)));
    await Promise.resolve();
    expect(admitted).toEqual([0, 1]);
    gate.leave();
    await Promise.resolve();
    expect(admitted).toEqual([0, 1, 2]);
    gate.leave();
    gate.leave();
    await Promise.all(entries);
    expect(admitted).toEqual([0, 1, 2, 3, 4]);
  });

  it('drops waiters whose signal aborts, never admitting them, and keeps the count right', async () => {
    const gate = createCallGate(1);
    const stopped = new AbortController();
    const other = new AbortController().signal;
    expect(gate.tryEnter()).toBe(true);
    expect(gate.tryEnter()).toBe(false);
    const dropped = [gate.enter(stopped.signal), gate.enter(stopped.signal)];
    const kept = gate.enter(other);
    stopped.abort();
    expect(await Promise.all(dropped)).toEqual([false, false]);
    expect(await gate.enter(stopped.signal)).toBe(false);
    gate.leave();
    expect(await kept).toBe(true);
    gate.leave();
    expect(await gate.enter(other)).toBe(true);
  });

  it('keeps no listener on a signal once none of its calls waits, and takes calls without a signal in turn', async () => {
    const gate = createCallGate(1);
    const controller = new AbortController();
    const signal = controller.signal;
    let listening = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<typeof add>) => {
      listening += 1;
      add(...args);
    };
    signal.removeEventListener = (...args: Parameters<typeof remove>) => {
      listening -= 1;
      remove(...args);
    };
    expect(gate.tryEnter()).toBe(true);
    const first = gate.enter(signal);
    const second = gate.enter(signal);
    const unsignalled = gate.enter(undefined);
    expect([listening, gate.waiting]).toEqual([1, 3]);
    gate.leave();
    expect(await first).toBe(true);
    expect(listening).toBe(1);
    gate.leave();
    expect(await second).toBe(true);
    expect(listening).toBe(0);
    // Aborted after its calls were admitted: nothing is dropped, the call without a signal still gets its turn.
    controller.abort();
    gate.leave();
    expect(await unsignalled).toBe(true);
    expect(gate.waiting).toBe(0);
  });

  it('adds one abort listener per signal, however many calls wait on it', async () => {
    const gate = createCallGate(1);
    const controller = new AbortController();
    let listeners = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<typeof add>) => {
      listeners += 1;
      add(...args);
    };
    await gate.enter(signal);
    const waiting = Array.from({ length: 300 }, () => gate.enter(signal));
    expect(listeners).toBe(1);
    controller.abort();
    expect((await Promise.all(waiting)).every((admitted) => !admitted)).toBe(true);
  });
});
