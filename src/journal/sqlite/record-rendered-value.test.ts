import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createReplayHost, createToolRegistry, unwrapUntrusted, type ToolDefinition } from '../../core/index.js';
import { sharedState, slowSpill } from '../../core/dispatch/__fixtures__/pipeline-fixtures.js';
import { createFakeHost } from '../../testing/index.js';
import { createSqliteJournal } from './create-sqlite-journal.js';
import type { SqliteJournal } from './sqlite-journal.js';

/**
 * The journal writes the JSON text the pipeline rendered for the model
 * instead of building it again, but only the text of this call's value as
 * its content was made from it: a value's object can be returned by
 * another call, changed in place by a hook after a first rendering, or
 * rendered by a tool's own `renderContent`, and the journal must record the
 * value as the call settled it, never an older text of the same object.
 */
let dir: string;
let journal: SqliteJournal;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-rendered-'));
  journal = createSqliteJournal(join(dir, 'journal.db'), { onUnresolved: () => undefined });
});
afterEach(() => {
  journal.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = { type: 'object' } as const;
const context = (tools: readonly ToolDefinition[]) => ({ grantedTools: tools.map((tool) => tool.name), runId: 'run' });

async function recorded(): Promise<unknown[]> {
  journal.flush();
  expect((await journal.verify()).ok).toBe(true);
  return (await journal.recordings({ runId: 'run' })).map((recording) => recording.value);
}

describe('a recorded value is the one the call settled', () => {
  it('records the second call of a shared object as it was then, not as the first rendered it', async () => {
    const state = { items: Array.from({ length: 200 }, (_, index) => `item-${index}-`.padEnd(50, 'x')) }; // about 10.6 KB of JSON
    const tools: ToolDefinition[] = [{ name: 'get_state', description: 'Read the state.', input, journal: 'record', dispatch: () => state }];
    const registry = createToolRegistry({ tools, host: createFakeHost(), journal });
    await registry.dispatch({ callId: 'c1', name: 'get_state', arguments: {} }, context(tools));
    state.items = state.items.slice(0, 100); // about 5.3 KB: under the length whose text is kept
    const second = await registry.dispatch({ callId: 'c2', name: 'get_state', arguments: {} }, context(tools));
    expect((JSON.parse(unwrapUntrusted(second.content)) as typeof state).items).toHaveLength(100);
    const [, secondValue] = await recorded();
    expect((secondValue as typeof state).items).toHaveLength(100);

    // A replay of the run answers the second call with what it returned.
    const replay = createReplayHost(journal, { runId: 'run' });
    const replayed = createToolRegistry({ tools, host: replay.host, journal: replay.journal });
    await replayed.dispatch({ callId: 'c1', name: 'get_state', arguments: {} }, context(tools));
    const again = await replayed.dispatch({ callId: 'c2', name: 'get_state', arguments: {} }, context(tools));
    expect(again.ok && (again.value as typeof state).items).toHaveLength(100);
  });

  it('records what a postExecute hook redacted in place, not the secret an earlier rendering held', async () => {
    const tools: ToolDefinition[] = [
      { name: 'fetch_user', description: 'Fetch a user.', input, journal: 'record', dispatch: () => ({ name: 'ann', apiKey: `SECRET-${'k'.repeat(6000)}`, bio: 'b'.repeat(3000) }) },
    ];
    const registry = createToolRegistry({
      tools,
      host: createFakeHost(),
      journal,
      hooks: {
        postExecute: [
          ({ value }) => {
            (value as { apiKey: string }).apiKey = '[redacted]';
            return undefined;
          },
        ],
      },
    });
    const outcome = await registry.dispatch({ callId: 'c1', name: 'fetch_user', arguments: {} }, context(tools));
    expect(unwrapUntrusted(outcome.content)).not.toContain('SECRET');
    const [value] = await recorded();
    expect(JSON.stringify(value)).not.toContain('SECRET');
    expect((value as { apiKey: string }).apiKey).toBe('[redacted]');
  });

  it('records the value a tool with its own renderContent returned, not an earlier default rendering of the object', async () => {
    const shared: Record<string, unknown> = { rows: Array.from({ length: 300 }, (_, index) => ({ id: index, text: 'row'.padEnd(30, '.') })) };
    const tools: ToolDefinition[] = [
      { name: 'plain', description: 'Rows.', input, journal: 'record', dispatch: () => shared },
      { name: 'custom', description: 'Rows, summarised.', input, journal: 'record', dispatch: () => shared, renderContent: () => 'a summary' },
    ];
    const registry = createToolRegistry({ tools, host: createFakeHost(), journal });
    await registry.dispatch({ callId: 'c1', name: 'plain', arguments: {} }, context(tools));
    (shared.rows as unknown[]).push({ id: 'new', text: 'added after' });
    shared.extra = 'grown';
    const expected: unknown = JSON.parse(JSON.stringify(shared));
    await registry.dispatch({ callId: 'c2', name: 'custom', arguments: {} }, context(tools));
    const [, value] = await recorded();
    expect(value).toEqual(expected);
  });

  it('records a value whose rendering fell back (a bigint) as not kept, not as an earlier rendering, and its replay is a miss', async () => {
    const shared: Record<string, unknown> = { rows: Array.from({ length: 300 }, (_, index) => ({ id: index, text: 'row'.padEnd(30, '.') })) };
    const tools: ToolDefinition[] = [{ name: 'rows', description: 'Rows.', input, journal: 'record', dispatch: () => shared }];
    const registry = createToolRegistry({ tools, host: createFakeHost(), journal });
    await registry.dispatch({ callId: 'c1', name: 'rows', arguments: {} }, context(tools));
    shared.total = 10n;
    await registry.dispatch({ callId: 'c2', name: 'rows', arguments: {} }, context(tools));
    journal.flush();
    const [, second] = await journal.recordings({ runId: 'run' });
    expect(second).toMatchObject({ ok: true, valueNotKept: true });
    expect(second).not.toHaveProperty('value');

    // A replay answers the first call and refuses the second: it never hands back a stand-in for the value.
    const replay = createReplayHost(journal, { runId: 'run' });
    const replayed = createToolRegistry({ tools, host: replay.host, journal: replay.journal });
    const first = await replayed.dispatch({ callId: 'c1', name: 'rows', arguments: {} }, context(tools));
    expect(first.ok && (first.value as { rows: unknown[] }).rows).toHaveLength(300);
    const again = await replayed.dispatch({ callId: 'c2', name: 'rows', arguments: {} }, context(tools));
    expect(again).toMatchObject({ ok: false, error: { code: 'REPLAY_MISS', reason: 'value_not_kept' } });
  });

  it('measures the text it writes: a value shrunk while its call waited on the spill is not kept past the limit as its older text', async () => {
    const bounded = createSqliteJournal(join(dir, 'bounded.db'), { onUnresolved: () => undefined, maxRecordedValueBytes: 16 * 1024 });
    try {
      const { tools } = sharedState({ journal: 'record' });
      const host = slowSpill(createFakeHost());
      const registry = createToolRegistry({ tools, host, journal: bounded });
      const reading = registry.dispatch({ callId: 'c1', name: 'get_state', arguments: {} }, context(tools));
      // The state is trimmed while the first call waits on its spill, after it rendered the value: not a fixed time
      // later, which a loaded machine can spend before the call reaches the spill.
      while (!host.calls.some((call) => call.capability === 'outputStore' && call.method === 'spill')) await new Promise((resolve) => setTimeout(resolve, 1));
      await registry.dispatch({ callId: 'c2', name: 'trim_state', arguments: {} }, context(tools));
      await reading;
      bounded.flush();
      const [recording] = await bounded.recordings({ runId: 'run' });
      // As the call rendered it the value is 64 KB: not kept under 16 KiB, whatever the object holds now.
      expect(recording?.valueNotKept).toBe(true);
      expect(recording?.value).toBeUndefined();
    } finally {
      bounded.close();
    }
  });

  it('still records a long value the pipeline rendered once, equal to the value', async () => {
    const tools: ToolDefinition[] = [{ name: 'rows', description: 'Rows.', input, journal: 'record', dispatch: () => ({ rows: Array.from({ length: 400 }, (_, index) => ({ id: index, text: 'é'.repeat(20) })) }) }];
    const registry = createToolRegistry({ tools, host: createFakeHost(), journal });
    const outcome = await registry.dispatch({ callId: 'c1', name: 'rows', arguments: {} }, context(tools));
    const [value] = await recorded();
    expect(value).toEqual(outcome.ok ? outcome.value : undefined);
  });
});
