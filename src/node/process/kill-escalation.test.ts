import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startKillEscalation, type KillEscalation } from './kill-escalation.js';

const TIMEOUT = 1_000;
const KILL_GRACE = 300;
const DRAIN_GRACE = 250;

let signals: NodeJS.Signals[];
let cuts: number;

function start(): KillEscalation {
  return startKillEscalation({
    signalGroup: (signal) => signals.push(signal),
    timeoutMs: TIMEOUT,
    killGraceMs: KILL_GRACE,
    drainGraceMs: DRAIN_GRACE,
    onCut: () => {
      cuts += 1;
    },
  });
}

beforeEach(() => {
  // The cut waits one turn of the loop after the last timer, so that turn is faked too.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
  signals = [];
  cuts = 0;
});
afterEach(() => vi.useRealTimers());

describe('startKillEscalation', () => {
  it('does nothing to a child that exits in time and closes its pipes', () => {
    const escalation = start();
    vi.advanceTimersByTime(TIMEOUT - 1);
    escalation.exited();
    escalation.stop();
    vi.advanceTimersByTime(10 * TIMEOUT);
    expect(signals).toEqual([]);
    expect(cuts).toBe(0);
    expect(escalation.timedOut).toBe(false);
  });

  it('after the deadline sends SIGTERM, then SIGKILL a kill grace later, then bounds the close', () => {
    const escalation = start();
    vi.advanceTimersByTime(TIMEOUT);
    expect(escalation.timedOut).toBe(true);
    expect(signals).toEqual(['SIGTERM']);
    vi.advanceTimersByTime(KILL_GRACE);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
    // No exit ever comes: the drain still runs from the SIGKILL.
    vi.advanceTimersByTime(DRAIN_GRACE);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL', 'SIGKILL']);
    expect(cuts).toBe(0);
    vi.advanceTimersByTime(DRAIN_GRACE);
    // The cut itself waits one more turn of the loop, for bytes already in the pipes.
    expect(cuts).toBe(0);
    vi.advanceTimersToNextTimer();
    expect(cuts).toBe(1);
  });

  it('a child that exits but whose pipes stay open is SIGKILLed after one drain grace and cut after two', () => {
    const escalation = start();
    escalation.exited();
    vi.advanceTimersByTime(DRAIN_GRACE - 1);
    expect(signals).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(signals).toEqual(['SIGKILL']);
    vi.advanceTimersByTime(DRAIN_GRACE);
    // The cut itself waits one more turn of the loop, for bytes already in the pipes.
    expect(cuts).toBe(0);
    vi.advanceTimersToNextTimer();
    expect(cuts).toBe(1);
    // The deadline was stopped by the exit.
    vi.advanceTimersByTime(10 * TIMEOUT);
    expect(escalation.timedOut).toBe(false);
    expect(signals).toEqual(['SIGKILL']);
  });

  it('kills once however often it is asked', () => {
    const escalation = start();
    escalation.kill();
    escalation.kill();
    vi.advanceTimersByTime(KILL_GRACE);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
    escalation.kill();
    vi.advanceTimersByTime(TIMEOUT);
    expect(escalation.timedOut).toBe(true);
    expect(signals).toEqual(['SIGTERM', 'SIGKILL', 'SIGKILL']);
    expect(cuts).toBe(1);
  });

  it('keeps the deadline running when the child exits during a kill', () => {
    const escalation = start();
    escalation.kill();
    escalation.exited();
    vi.advanceTimersByTime(TIMEOUT);
    expect(escalation.timedOut).toBe(true);
  });

  it('fires no timer once stopped', () => {
    const escalation = start();
    escalation.kill();
    escalation.exited();
    escalation.stop();
    vi.advanceTimersByTime(10 * TIMEOUT);
    expect(signals).toEqual(['SIGTERM']);
    expect(cuts).toBe(0);
    expect(escalation.timedOut).toBe(false);
  });
});
