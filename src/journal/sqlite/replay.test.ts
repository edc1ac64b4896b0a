import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReplayHost, createToolRegistry, requireCapability, unwrapUntrusted, withAttachments, type MediaHandle, type ReplayMissError, type ToolCall, type ToolDefinition, type ToolOutcome, type Untrusted } from '../../core/internal.js';
import { createMediaStore } from '../../node/stores/create-media-store.js';
import { createFakeHost } from '../../testing/index.js';
import { createSqliteJournal } from './create-sqlite-journal.js';
import type { SqliteJournal } from './sqlite-journal.js';

let dir: string;
let journal: SqliteJournal;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-replay-'));
  journal = createSqliteJournal(join(dir, 'journal.db'), { recordAll: true, onUnresolved: () => undefined });
});
afterEach(() => {
  journal.close();
  rmSync(dir, { recursive: true, force: true });
});

const bodies = { count: 0 };
const path = { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path'], additionalProperties: false } as const;
type NoteArgs = { path: string; text?: string };
const tools: ToolDefinition<NoteArgs>[] = [
  {
    name: 'write_note',
    description: 'Write a note.',
    input: path,
    journal: 'effect',
    dispatch: async (args, host) => {
      bodies.count += 1;
      return requireCapability(host, 'fs', 'write_note').writeFile(args.path, args.text ?? '');
    },
  },
  {
    name: 'read_note',
    description: 'Read a note.',
    input: path,
    dispatch: async (args, host) => {
      bodies.count += 1;
      return (await requireCapability(host, 'fs', 'read_note').readFile(args.path)).content;
    },
  },
  {
    name: 'count_words',
    description: 'Count words.',
    input: path,
    journal: 'record',
    dispatch: (args) => {
      bodies.count += 1;
      return (args.text ?? '').split(/\s+/).filter(Boolean).length;
    },
  },
];

/** A 20-call session: writes, reads (one of a missing file: an error), pure calls, and an idempotent retry. */
function session(): ToolCall[] {
  const calls: ToolCall[] = [];
  for (let index = 0; index < 6; index += 1) calls.push({ callId: `w${index}`, name: 'write_note', arguments: { path: `notes/${index}.md`, text: `note ${index} says hello` } });
  for (let index = 0; index < 7; index += 1) calls.push({ callId: `r${index}`, name: 'read_note', arguments: { path: `notes/${index}.md` } });
  for (let index = 0; index < 5; index += 1) calls.push({ callId: `c${index}`, name: 'count_words', arguments: { path: 'x', text: 'one two three'.slice(0, 3 + index * 2) } });
  calls.push({ callId: 'w0', name: 'write_note', arguments: { path: 'notes/0.md', text: 'note 0 says hello' } });
  calls.push({ callId: 'w6', name: 'write_note', arguments: { path: 'notes/0.md', text: 'note 0 says hello' } });
  return calls;
}

function view(outcome: ToolOutcome): unknown {
  return { ok: outcome.ok, value: outcome.ok ? outcome.value : undefined, content: unwrapUntrusted(outcome.content), code: outcome.ok ? 'OK' : outcome.error.code };
}

async function play(registry: ReturnType<typeof createToolRegistry>, runId: string): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  for (const call of session()) outcomes.push(view(await registry.dispatch(call, { grantedTools: ['write_note', 'read_note', 'count_words'], runId })));
  return outcomes;
}

describe('replay', () => {
  it('re-runs a recorded 20-call session with identical outcomes, no body run and no host touched', async () => {
    const host = createFakeHost();
    bodies.count = 0;
    const recorded = await play(createToolRegistry({ tools, host, journal }), 'run-7');
    expect(recorded).toHaveLength(20);
    expect(recorded.some((outcome) => (outcome as { ok: boolean }).ok === false)).toBe(true);
    const bodiesWhileRecording = bodies.count;
    expect(bodiesWhileRecording).toBe(19); // the retry of w0 was answered by the journal

    const replay = createReplayHost(journal, { runId: 'run-7' });
    const replayed = await play(createToolRegistry({ tools, host: replay.host, journal: replay.journal }), 'replay-of-run-7');
    expect(replayed).toEqual(recorded);
    expect(bodies.count).toBe(bodiesWhileRecording);
    expect(replay.stats()).toEqual({ hits: 20, misses: 0, remaining: 0 });
    // Replay wrote nothing: the journal still holds only the recording.
    expect(await journal.recordings({ runId: 'replay-of-run-7' })).toEqual([]);
  });

  it('refuses a call the recording does not hold with REPLAY_MISS, and its host refuses any use', async () => {
    await play(createToolRegistry({ tools, host: createFakeHost(), journal }), 'run-8');
    const replay = createReplayHost(journal, { runId: 'run-8' });
    const registry = createToolRegistry({ tools, host: replay.host, journal: replay.journal });
    const outcome = await registry.dispatch({ callId: 'new', name: 'write_note', arguments: { path: 'notes/99.md', text: 'unrecorded' } }, { grantedTools: ['write_note'], runId: 'x' });
    expect(outcome.ok ? undefined : outcome.error.code).toBe('REPLAY_MISS');
    expect(replay.stats().misses).toBe(1);
    await expect(replay.host.fs!.writeFile('a', 'b')).rejects.toMatchObject({ code: 'REPLAY_MISS' });
  });
});

describe('replay of a call that returned media', () => {
  const screenshot: ToolDefinition<Record<string, never>> = {
    name: 'screenshot',
    description: 'Take a screenshot.',
    input: { type: 'object' },
    journal: 'effect',
    dispatch: async (_args, host) => {
      bodies.count += 1;
      return withAttachments('the screen', [await requireCapability(host, 'mediaStore', 'screenshot').put(new TextEncoder().encode('png bytes'), 'image/png')]);
    },
  };
  const call: ToolCall = { callId: 's1', name: 'screenshot', arguments: {} };

  async function recordShot(): Promise<{ mediaDir: string; recorded: ToolOutcome }> {
    const mediaDir = join(dir, 'media');
    const recorded = await createToolRegistry({ tools: [screenshot], host: { mediaStore: createMediaStore(mediaDir) }, journal }).dispatch(call, { grantedTools: ['screenshot'], runId: 'shots' });
    expect(recorded.ok).toBe(true);
    return { mediaDir, recorded };
  }

  it('records the attachment by handle beside its receipt; a replay restores it from the media store, and the chain verifies', async () => {
    const { mediaDir, recorded } = await recordShot();
    const [entry] = await journal.recordings({ runId: 'shots' });
    const handle = recorded.ok ? unwrapUntrusted(recorded.attachments?.[0] as Untrusted<MediaHandle>) : undefined;
    expect(handle).toMatchObject({ mediaType: 'image/png', bytes: 9 });
    expect(entry?.attachments).toEqual([handle]);
    expect(entry?.receipt.attachments).toEqual([handle]);
    expect(await journal.verify()).toMatchObject({ ok: true });

    const before = bodies.count;
    const replay = createReplayHost(journal, { runId: 'shots', mediaStore: createMediaStore(mediaDir) });
    const replayed = await createToolRegistry({ tools: [screenshot], host: replay.host, journal: replay.journal }).dispatch(call, { grantedTools: ['screenshot'], runId: 'shots' });
    expect(replayed.ok && replayed.attachments?.map((attachment) => unwrapUntrusted(attachment))).toEqual([handle]);
    expect(replay.stats()).toEqual({ hits: 1, misses: 0, remaining: 0 });
    expect(bodies.count).toBe(before);
    // The replay host reads the store and writes nothing to it.
    await expect(replay.host.mediaStore?.put(new Uint8Array(1), 'image/png')).rejects.toMatchObject({ code: 'REPLAY_MISS' });
  });

  it('with the bytes removed (retention), or no media store given, the replay is a typed miss and the body never runs', async () => {
    const { mediaDir } = await recordShot();
    const before = bodies.count;
    rmSync(mediaDir, { recursive: true });
    for (const options of [{ runId: 'shots', mediaStore: createMediaStore(mediaDir) }, { runId: 'shots' }]) {
      const replay = createReplayHost(journal, options);
      const replayed = await createToolRegistry({ tools: [screenshot], host: replay.host, journal: replay.journal }).dispatch(call, { grantedTools: ['screenshot'], runId: 'shots' });
      expect(replayed.ok ? undefined : { code: replayed.error.code, reason: (replayed.error as ReplayMissError).reason }).toEqual({ code: 'REPLAY_MISS', reason: 'media_missing' });
      // Found, and not answered from: a miss in the session's count, as on the line `toolgate replay` prints.
      expect(replay.stats()).toEqual({ hits: 0, misses: 1, remaining: 0 });
    }
    expect(bodies.count).toBe(before);
  });
});

describe('a recorded call whose value was larger than the journal keeps', () => {
  const big = defineBigTool();
  function defineBigTool(): ToolDefinition<{ size: number }> {
    return {
      name: 'big_value',
      description: 'A value of `size` characters.',
      input: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'], additionalProperties: false },
      journal: 'effect',
      dispatch: (args) => {
        bodies.count += 1;
        return { text: 'y'.repeat(args.size) };
      },
    };
  }

  it('keeps its content and receipt, not its value: a retry and a replay are refused as a miss, and the body never runs again', async () => {
    journal.close();
    journal = createSqliteJournal(join(dir, 'capped.db'), { recordAll: true, maxRecordedValueBytes: 4096, onUnresolved: () => undefined });
    const registry = createToolRegistry({ tools: [big], journal });
    const context = { grantedTools: ['big_value'], runId: 'big' };
    const first = await registry.dispatch({ callId: 'b1', name: 'big_value', arguments: { size: 100_000 } }, context);
    const small = await registry.dispatch({ callId: 'b2', name: 'big_value', arguments: { size: 100 } }, context);
    expect([first.ok, small.ok]).toEqual([true, true]);
    const recordings = await journal.recordings({ runId: 'big' });
    expect(recordings.map((entry) => entry.valueNotKept === true)).toEqual([true, false]);
    expect(recordings[0]?.value).toBeUndefined();
    expect(recordings[0]?.content).toBe(first.ok ? unwrapUntrusted(first.content) : '');
    expect(recordings[1]?.value).toEqual({ text: 'y'.repeat(100) });
    expect(await journal.verify()).toMatchObject({ ok: true });

    const before = bodies.count;
    // The same call again: its key is settled, so it is answered from the recording, which has no value to answer with.
    const retried = await registry.dispatch({ callId: 'b1', name: 'big_value', arguments: { size: 100_000 } }, context);
    expect(retried.ok ? undefined : { code: retried.error.code, reason: (retried.error as ReplayMissError).reason }).toEqual({ code: 'REPLAY_MISS', reason: 'value_not_kept' });
    const replay = createReplayHost(journal, { runId: 'big' });
    const replayed = createToolRegistry({ tools: [big], host: replay.host, journal: replay.journal });
    const outcomes = await Promise.all([replayed.dispatch({ callId: 'b1', name: 'big_value', arguments: { size: 100_000 } }, context), replayed.dispatch({ callId: 'b2', name: 'big_value', arguments: { size: 100 } }, context)]);
    expect(outcomes.map((outcome) => (outcome.ok ? 'ok' : outcome.error.message))).toEqual(['Tool "big_value" returned a value the journal does not keep (too large, or with no JSON form): the recorded call is not replayed.', 'ok']);
    expect(replay.stats()).toEqual({ hits: 1, misses: 1, remaining: 0 });
    expect(bodies.count).toBe(before);
  });

  it('refuses a cap that is not a positive integer', () => {
    expect(() => createSqliteJournal(join(dir, 'bad.db'), { maxRecordedValueBytes: 0 })).toThrow(/maxRecordedValueBytes/);
  });
});
