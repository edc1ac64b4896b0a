import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolUnavailableError, type SpilledResult, type ToolOutputStore } from '../../core/internal.js';
import { readStoreFile } from './read-store-file.js';

const SAFE_RUN_ID = /^[A-Za-z0-9._-]{1,64}$/;
// `@` is outside SAFE_RUN_ID: the store's own names (no run, a hashed id) are a namespace no run id can spell.
const HANDLE = /^spill:(@?[A-Za-z0-9._-]{1,64})\/([0-9a-f]{24})$/;
const DEFAULT_RUN = '@no-run';
/** What one store keeps at most: six spills of the largest file `read_file` reads (10 MiB) and more. */
export const DEFAULT_MAX_SPILL_BYTES = 64 * 1024 * 1024;

export interface NodeOutputStore extends ToolOutputStore {
  /** The full spilled text, or `undefined` when the handle is unknown or swept. */
  read(handle: string): Promise<string | undefined>;
  /** Remove one run's spills. */
  endRun(runId: string): Promise<void>;
}

export interface OutputStoreOptions {
  /**
   * The most bytes of spills the store keeps at once (default 64 MiB). Past it the oldest spills it made are
   * removed first; a result larger than the whole budget is not spilled. Without it a model that read one large
   * file again and again (a read asks no one) filled the disk at the speed of its calls.
   */
  readonly maxBytes?: number;
}

interface KeptSpill {
  readonly run: string;
  readonly file: string;
  readonly bytes: number;
}

/** A run id becomes a directory name: safe ids are kept, anything else is hashed. */
function runDirectoryName(runId: string | undefined): string {
  if (runId === undefined) return DEFAULT_RUN;
  if (SAFE_RUN_ID.test(runId) && runId !== '.' && runId !== '..') return runId;
  return `@h-${createHash('sha256').update(runId).digest('hex').slice(0, 40)}`;
}

/** Run-scoped spills under `directory/<run>/`, swept by `endRun`, and bounded in all by `maxBytes`. */
export function createOutputStore(directory: string, options: OutputStoreOptions = {}): NodeOutputStore {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_SPILL_BYTES;
  // The spills this store wrote and still keeps, oldest first; the bytes they hold, and they and the writes under way.
  const kept: KeptSpill[] = [];
  let keptBytes = 0;
  let held = 0;
  return {
    async spill(text, _limits, signal, runId): Promise<SpilledResult> {
      signal?.throwIfAborted();
      const bytes = Buffer.byteLength(text);
      const run = runDirectoryName(runId);
      const name = randomBytes(12).toString('hex');
      const file = path.join(directory, run, name);
      // Reserved before any await, so spills written side by side cannot each find room for themselves alone.
      held += bytes;
      try {
        // One that would not fit with every kept spill gone (too large, or beside writes under way) removes none of them.
        if (held - keptBytes > maxBytes) throw tooLarge(bytes, maxBytes);
        while (held > maxBytes && kept.length > 0) {
          const oldest = kept.shift() as KeptSpill;
          held -= oldest.bytes;
          keptBytes -= oldest.bytes;
          await rm(oldest.file, { force: true });
        }
        if (held > maxBytes) throw tooLarge(bytes, maxBytes);
        await mkdir(path.join(directory, run), { recursive: true, mode: 0o700 });
        await writeFile(file, text, { flag: 'wx', mode: 0o600, ...(signal === undefined ? {} : { signal }) });
      } catch (error) {
        held -= bytes;
        await rm(file, { force: true });
        throw error;
      }
      kept.push({ run, file, bytes });
      keptBytes += bytes;
      return { handle: `spill:${run}/${name}`, bytes };
    },
    async read(handle) {
      const match = HANDLE.exec(handle);
      const run = match?.[1];
      // A handle names a file in one run's folder, as spill made it: never `.` or `..`, never through a link.
      if (match === null || run === undefined || run === '.' || run === '..') return undefined;
      return (await readStoreFile(path.join(directory, run, match[2] ?? '')))?.toString('utf8');
    },
    async endRun(runId) {
      const run = runDirectoryName(runId);
      for (let index = kept.length - 1; index >= 0; index -= 1) {
        const spill = kept[index] as KeptSpill;
        if (spill.run !== run) continue;
        held -= spill.bytes;
        keptBytes -= spill.bytes;
        kept.splice(index, 1);
      }
      await rm(path.join(directory, run), { recursive: true, force: true });
    },
  };
}

function tooLarge(bytes: number, maxBytes: number): ToolUnavailableError {
  return new ToolUnavailableError('outputStore', 'outputStore', `the result (${bytes} bytes) does not fit the spill store's ${maxBytes} bytes`);
}
