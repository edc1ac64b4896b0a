/** Sends a signal to the child's whole process group. */
export type SignalGroup = (signal: NodeJS.Signals) => void;

export interface KillEscalationOptions {
  readonly signalGroup: SignalGroup;
  readonly timeoutMs: number;
  /** Between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** How long the pipes may stay open after the exit (or the SIGKILL) before the next step. */
  readonly drainGraceMs: number;
  /** The pipes must be cut now: the call settles with what was read. */
  readonly onCut: () => void;
}

export interface KillEscalation {
  /** SIGTERM the group, then SIGKILL it a kill grace later and bound the close. Idempotent. */
  kill(): void;
  /** The child exited: stop the deadline unless a kill is under way, and bound the close. */
  exited(): void;
  /** The call settled: no timer may fire any more. */
  stop(): void;
  /** The deadline passed before the child exited. */
  readonly timedOut: boolean;
}

/**
 * The timers that bound a child in time: the deadline, the grace between
 * SIGTERM and SIGKILL, and the drain that waits for the pipes to close.
 * Once the drain is armed, `close` is awaited for one drain grace; then the
 * group is SIGKILLed and `close` awaited one more; then `onCut`. The cut
 * waits for one turn of the event loop (`setImmediate` runs after the poll
 * phase) so bytes already sitting in the pipes are read even when the loop
 * was busy past the timers.
 */
export function startKillEscalation(options: KillEscalationOptions): KillEscalation {
  const { signalGroup, drainGraceMs } = options;
  let killing = false;
  let stopped = false;
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;

  const boundClose = (): void => {
    if (drainTimer !== undefined || stopped) return;
    drainTimer = setTimeout(() => {
      signalGroup('SIGKILL');
      drainTimer = setTimeout(() => setImmediate(options.onCut), drainGraceMs);
    }, drainGraceMs);
  };
  const kill = (): void => {
    if (killing) return;
    killing = true;
    signalGroup('SIGTERM');
    killTimer = setTimeout(() => {
      signalGroup('SIGKILL');
      // A child that cannot even be reaped must not hold the call past the bound.
      boundClose();
    }, options.killGraceMs);
    killTimer.unref();
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);

  return {
    kill,
    exited() {
      // The child finished in time: what remains is only draining its pipes, bounded below.
      if (!killing) clearTimeout(deadline);
      boundClose();
    },
    stop() {
      stopped = true;
      clearTimeout(deadline);
      if (killTimer !== undefined) clearTimeout(killTimer);
      if (drainTimer !== undefined) clearTimeout(drainTimer);
    },
    get timedOut() {
      return timedOut;
    },
  };
}
