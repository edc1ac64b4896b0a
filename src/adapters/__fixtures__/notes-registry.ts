import { z } from 'zod';
import { createToolRegistry, defineTool, requireCapability, type Journal, type JournalSettleInput, type ToolReceipt, type ToolRegistry } from '../../core/internal.js';
import { createFakeHost, type FakeHost } from '../../testing/index.js';

/** A journal that keeps everything in memory: enough to see what was settled. */
export interface MemoryJournal extends Journal {
  readonly settled: JournalSettleInput[];
}

export function createMemoryJournal(): MemoryJournal {
  const settled: JournalSettleInput[] = [];
  let claims = 0;
  return {
    settled,
    prepare: (input) => Promise.resolve({ status: 'claimed', claim: { key: input.key, claimId: `claim-${(claims += 1)}` } }),
    settle: (_claim, input) => {
      settled.push(input);
      return Promise.resolve();
    },
    discard: () => Promise.resolve(),
    lookup: () => Promise.resolve(undefined),
    append: () => Promise.resolve(),
    unresolved: () => Promise.resolve([]),
    verify: () => Promise.resolve({ ok: true, rows: settled.length }),
  };
}

export interface NotesFixture {
  readonly registry: ToolRegistry;
  readonly host: FakeHost;
  readonly journal: MemoryJournal;
  /** Every receipt toolgate produced, from `tool-result` events, in order. */
  readonly receipts: ToolReceipt[];
}

/**
 * A governed `write_note` (a filesystem write: approval required), a plain
 * `read_note`, and a `wipe_notes` nobody is granted.
 */
export function createNotesFixture(): NotesFixture {
  const host = createFakeHost({ files: { 'notes/todo.txt': 'buy milk' } });
  const journal = createMemoryJournal();
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Write a note to a file in the workspace.',
    input: z.object({ path: z.string().max(200), text: z.string().max(2000) }),
    policy: { fsScoped: true, fsWrite: true },
    policyTarget: (args) => ({ path: args.path }),
    dispatch: async (args, toolHost, context) => {
      const written = await requireCapability(toolHost, 'fs', 'write_note').writeFile(args.path, args.text, {}, context.signal);
      return `wrote ${written.bytes} bytes to ${args.path}`;
    },
  });
  const readNote = defineTool({
    name: 'read_note',
    description: 'Read a note from the workspace.',
    input: z.object({ path: z.string().max(200) }),
    policy: { fsScoped: true },
    policyTarget: (args) => ({ path: args.path }),
    dispatch: async (args, toolHost, context) => (await requireCapability(toolHost, 'fs', 'read_note').readFile(args.path, {}, context.signal)).content,
  });
  const wipeNotes = defineTool({
    name: 'wipe_notes',
    description: 'Delete every note.',
    input: z.object({}),
    policy: { fsScoped: true, fsWrite: true },
    dispatch: () => 'wiped',
  });
  const registry = createToolRegistry({ tools: [writeNote, readNote, wipeNotes], host, journal });
  const receipts: ToolReceipt[] = [];
  registry.on('tool-result', (event) => void receipts.push(event.receipt));
  return { registry, host, journal, receipts };
}

/** What every adapter test grants: the two note tools, not `wipe_notes`. */
export const NOTES_GRANT = ['write_note', 'read_note'] as const;
