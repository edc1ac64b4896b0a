import type { ToolHostCallOptions } from '../core/internal.js';

type ProgressSink = NonNullable<ToolHostCallOptions['onProgress']>;
type Progress = Parameters<ProgressSink>[0];

/** At most one progress notification of a call goes to its client in this many milliseconds. */
export const PROGRESS_INTERVAL_MS = 50;

export interface ProgressThrottle {
  readonly report: ProgressSink;
  /** The call is over: an update still held is sent now, before its result, and nothing is sent after. */
  readonly stop: () => void;
}

/**
 * A call's progress, sent on to its client at most once per `intervalMs`:
 * the first update at once, then the latest of each interval at its end,
 * and the latest held when the call ends, before its result (a progress bar
 * needs no more, and never an older value after a newer).
 * A tool, or an upstream server, may report progress as fast as it can
 * write; each update forwarded is a write to the client and, over stdio, a
 * system call of the gateway's, so a flood of them would cost the client
 * and every other call of the gateway.
 */
export function throttleProgress(send: ProgressSink, intervalMs = PROGRESS_INTERVAL_MS): ProgressThrottle {
  let sentAt = -Infinity;
  let held: Progress | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const sendNow = (progress: Progress): void => {
    sentAt = performance.now();
    send(progress);
  };
  const flush = (): void => {
    timer = undefined;
    const progress = held;
    held = undefined;
    if (progress !== undefined) sendNow(progress);
  };
  return {
    report(progress) {
      if (stopped) return;
      const waited = performance.now() - sentAt;
      if (timer === undefined && waited >= intervalMs) {
        sendNow(progress);
        return;
      }
      held = progress;
      timer ??= setTimeout(flush, intervalMs - waited);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      flush();
    },
  };
}
