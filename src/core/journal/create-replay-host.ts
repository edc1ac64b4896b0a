import { ToolgateError } from '../errors/toolgate-error.js';
import { ConfigurationError, ReplayMissError } from '../errors/tool-errors.js';
import type { MediaStore, ToolHost } from '../host/tool-host.js';
import { restoreAttachments } from '../dispatch/restore-attachments.js';
import type { Journal, JournalPrepareInput, JournalPrepareResult, RecordedResult } from './journal-types.js';

export interface ReplayHostOptions {
  /** The recorded run to answer from. */
  readonly runId: string;
  /**
   * The media store the recorded run kept its media in. A recorded result
   * with media attachments is replayed only while the store still holds
   * their bytes, checked against each handle; without a store, or with the
   * bytes gone, it is a replay miss. The replay host reads from it and
   * never writes to it.
   */
  readonly mediaStore?: MediaStore;
}

export interface ReplayStats {
  /** Calls answered from the recording. */
  readonly hits: number;
  /** Calls refused with `ReplayMissError`. */
  readonly misses: number;
  /** Recorded results no call has asked for yet. */
  readonly remaining: number;
}

/**
 * A replay session: build a registry with `{ host, journal }` from here and
 * re-run the recorded agent session. Every call, whatever its tier, is
 * answered at stage 10 from the recording — the body never runs — and a call
 * the recording does not hold is refused with `ReplayMissError`.
 */
export interface ReplaySession {
  /** A host that performs nothing: any capability use throws `REPLAY_MISS` (but a read of the given media store). */
  readonly host: ToolHost;
  /** Replay-only: answers from the recording, writes nothing. */
  readonly journal: Journal;
  stats(): ReplayStats;
}

const CAPABILITIES = ['fs', 'process', 'egress', 'os', 'mcp', 'outputStore', 'mediaStore'] as const;

/**
 * Every capability present, every method refusing: a replay must never touch
 * the world. The one exception is reading the recorded run's media back
 * from `mediaStore`, which changes nothing.
 */
function createRefusingHost(mediaStore: MediaStore | undefined): ToolHost {
  const host: Record<string, unknown> = {};
  for (const capability of CAPABILITIES) {
    host[capability] = new Proxy(
      {},
      {
        get: (_target, method) => {
          if (typeof method !== 'string' || method === 'then') return undefined;
          if (capability === 'mediaStore' && method === 'get' && mediaStore !== undefined) return (handle: string) => mediaStore.get(handle);
          // Capability methods are async: refuse the way a real one fails.
          return () => Promise.reject(new ToolgateError('REPLAY_MISS', `Replay performs no side effects: the host capability "${capability}.${method}" was called.`));
        },
      },
    );
  }
  return Object.freeze(host);
}

/**
 * Answer every call of a re-run from the receipts recorded for `runId`,
 * matched by action digest (the same tool version doing the same thing for
 * the same agent). Repeats of one action are answered in recorded order; a
 * call id seen before gets the same answer again, as the live journal's
 * idempotency would have given. Record with `coverage: 'all'` (SQLite:
 * `recordAll: true`) so that tools of tier `none` are recorded too.
 */
export function createReplayHost(journal: Journal, options: ReplayHostOptions): ReplaySession {
  if (typeof journal.recordings !== 'function') throw new ConfigurationError('journal', 'cannot list recordings, so it cannot be replayed');
  if (typeof options.runId !== 'string' || options.runId.length === 0) throw new ConfigurationError('runId', 'must be a non-empty string');
  const source = journal;
  let queues: Promise<Map<string, RecordedResult[]>> | undefined;
  const answered = new Map<string, RecordedResult>();
  let hits = 0;
  let misses = 0;
  let remaining = 0;

  const load = (): Promise<Map<string, RecordedResult[]>> =>
    (queues ??= (async () => {
      const byDigest = new Map<string, RecordedResult[]>();
      for (const recorded of (await source.recordings?.({ runId: options.runId })) ?? []) {
        const digest = recorded.receipt.actionDigest;
        if (digest === undefined) continue;
        byDigest.set(digest, [...(byDigest.get(digest) ?? []), recorded]);
        remaining += 1;
      }
      return byDigest;
    })());

  const prepare = async (input: JournalPrepareInput): Promise<JournalPrepareResult> => {
    const again = answered.get(input.key);
    if (again !== undefined) {
      hits += 1;
      return { status: 'recorded', recorded: again };
    }
    const queue = (await load()).get(input.actionDigest);
    // Prefer the recording of this very call id; otherwise the next one in recorded order.
    const index = queue === undefined ? -1 : Math.max(0, queue.findIndex((entry) => entry.receipt.callId === input.callId));
    const recorded = queue?.[index];
    if (queue === undefined || recorded === undefined) {
      misses += 1;
      return { status: 'refused', error: new ReplayMissError(input.toolName) };
    }
    queue.splice(index, 1);
    remaining -= 1;
    // A recording without its value (too large, or with no JSON form) cannot answer: found, and a miss.
    if (recorded.valueNotKept === true) {
      misses += 1;
      return { status: 'refused', error: new ReplayMissError(input.toolName, 'value_not_kept') };
    }
    // A recording with media answers only while its bytes are there: checked here too, so a recording found and
    // not answered from counts as the miss it is (the dispatch checks again as it restores them, for every journal).
    if (recorded.attachments !== undefined || recorded.receipt.attachments !== undefined) {
      const restored = await restoreAttachments({ tool: input.toolName, recorded, mediaStore: options.mediaStore });
      if (!restored.ok) {
        misses += 1;
        return { status: 'refused', error: restored.error };
      }
    }
    hits += 1;
    answered.set(input.key, recorded);
    return { status: 'recorded', recorded };
  };

  const replayJournal: Journal = {
    coverage: 'all',
    prepare,
    settle: () => Promise.resolve(),
    discard: () => Promise.resolve(),
    append: () => Promise.resolve(),
    lookup: (key) => Promise.resolve(answered.get(key)),
    unresolved: () => Promise.resolve([]),
    verify: () => source.verify(),
  };
  return { host: createRefusingHost(options.mediaStore), journal: Object.freeze(replayJournal), stats: () => ({ hits, misses, remaining }) };
}
