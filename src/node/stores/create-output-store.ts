import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SpilledResult, ToolOutputStore } from '../../core/internal.js';
import { readStoreFile } from './read-store-file.js';

const SAFE_RUN_ID = /^[A-Za-z0-9._-]{1,64}$/;
// `@` is outside SAFE_RUN_ID: the store's own names (no run, a hashed id) are a namespace no run id can spell.
const HANDLE = /^spill:(@?[A-Za-z0-9._-]{1,64})\/([0-9a-f]{24})$/;
const DEFAULT_RUN = '@no-run';

export interface NodeOutputStore extends ToolOutputStore {
  /** The full spilled text, or `undefined` when the handle is unknown or swept. */
  read(handle: string): Promise<string | undefined>;
  /** Remove one run's spills. */
  endRun(runId: string): Promise<void>;
}

/** A run id becomes a directory name: safe ids are kept, anything else is hashed. */
function runDirectoryName(runId: string | undefined): string {
  if (runId === undefined) return DEFAULT_RUN;
  if (SAFE_RUN_ID.test(runId) && runId !== '.' && runId !== '..') return runId;
  return `@h-${createHash('sha256').update(runId).digest('hex').slice(0, 40)}`;
}

/** Run-scoped spills under `directory/<run>/`, swept by `endRun`. */
export function createOutputStore(directory: string): NodeOutputStore {
  return {
    async spill(text, _limits, signal, runId): Promise<SpilledResult> {
      signal?.throwIfAborted();
      const run = runDirectoryName(runId);
      const name = randomBytes(12).toString('hex');
      await mkdir(path.join(directory, run), { recursive: true, mode: 0o700 });
      await writeFile(path.join(directory, run, name), text, { flag: 'wx', mode: 0o600, ...(signal === undefined ? {} : { signal }) });
      return { handle: `spill:${run}/${name}`, bytes: Buffer.byteLength(text) };
    },
    async read(handle) {
      const match = HANDLE.exec(handle);
      const run = match?.[1];
      // A handle names a file in one run's folder, as spill made it: never `.` or `..`, never through a link.
      if (match === null || run === undefined || run === '.' || run === '..') return undefined;
      return (await readStoreFile(path.join(directory, run, match[2] ?? '')))?.toString('utf8');
    },
    async endRun(runId) {
      await rm(path.join(directory, runDirectoryName(runId)), { recursive: true, force: true });
    },
  };
}
