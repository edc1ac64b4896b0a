import { createHash } from 'node:crypto';
import type { FileEdit, FsCapability, HostCallLabel, MediaStore } from '../../core/internal.js';
import { asPermissionDenial, hostDenial, hostFailure } from '../errors/host-denial.js';
import { decodeText } from '../stores/sniff-media-type.js';
import type { FsJail } from './fs-jail.js';
import { listJailedDirectory } from './list-jailed-directory.js';
import type { HeldWrite } from '../process/create-process-capability.js';
import type { PathLocks } from './path-locks.js';
import { readJailedBytes, readJailedFile } from './read-jailed-file.js';
import { resolveJailedPath } from './resolve-jailed-path.js';
import { writeJailedFile } from './write-jailed-file.js';

export interface CreateFsCapabilityOptions {
  readonly jail: FsJail;
  readonly mediaStore: MediaStore;
  readonly maxFileBytes: number;
  readonly maxListEntries?: number;
  /** Shared with the process capability: a write waits while a starting command holds its file (`createPathLocks`). */
  readonly locks: PathLocks;
  /** Each write held to the nested repositories as a command is (`NodeProcessCapability.holdingRepositories`). */
  readonly holdingRepositories?: <T>(tool: string | undefined, held: HeldWrite, write: () => Promise<T>) => Promise<T>;
}

/**
 * The jailed filesystem capability: every method resolves, opens and
 * verifies inside the jail, and re-checks the target the call was approved
 * for (`expected`) before anything is read or written.
 */
export function createFsCapability(options: CreateFsCapabilityOptions): Required<FsCapability> {
  const { jail, mediaStore, maxFileBytes } = options;
  return {
    readFile: (requested, read = {}, signal) =>
      refusedByModes(read.tool, () =>
        readJailedFile({ jail, path: requested, maxBytes: maxFileBytes, mediaStore, offset: read.offset, limit: read.limit, tool: read.tool, expected: read.expected, signal }),
      ),
    writeFile: (requested, content, write = {}, signal) =>
      refusedByModes(write.tool, () =>
        whileHeld(options, requested, write, () =>
          writeJailedFile({ jail, path: requested, content, maxBytes: maxFileBytes, expectedSha256: write.expectedSha256, tool: write.tool, expected: write.expected, signal }),
        ),
      ),
    listDirectory: (requested, list = {}, signal) =>
      refusedByModes(list.tool, () =>
        listJailedDirectory({ jail, path: requested, depth: list.depth, includeHidden: list.includeHidden, maxEntries: options.maxListEntries ?? 5000, tool: list.tool, expected: list.expected, signal }),
      ),
    editFile: (requested, edit, label = {}, signal) => refusedByModes(label.tool, () => whileHeld(options, requested, label, () => editJailedFile(options, requested, edit, label, signal))),
  };
}

/**
 * `work`, with a path the system refuses this process by its modes answered
 * as a refusal. A gateway run as root never meets one; run as a user, it
 * meets them in another user's folders (`/root`, a build cache a container
 * left in the workspace, `/etc`), and each call there failed as if the host
 * had broken.
 */
async function refusedByModes<T>(tool: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asPermissionDenial(tool, error);
  }
}

/**
 * Run a write of `requested` once no starting command holds the file it
 * leads to, held to the nested repositories. A path that does not resolve
 * is left to the write to refuse, in its own order of checks.
 */
async function whileHeld<T>(options: CreateFsCapabilityOptions, requested: string, label: HostCallLabel, work: () => Promise<T>): Promise<T> {
  let target: string;
  try {
    target = resolveJailedPath(options.jail, requested, label.tool, label.expected).absolute;
  } catch {
    return work();
  }
  const release = await options.locks.acquire([target]);
  try {
    return await (options.holdingRepositories === undefined ? work() : options.holdingRepositories(label.tool, { capability: 'fs', target }, work));
  } finally {
    release();
  }
}

/** Replace exact text in a jailed file, written back only if it still holds what was read. */
async function editJailedFile(
  options: CreateFsCapabilityOptions,
  requested: string,
  edit: { readonly oldText: string; readonly newText: string; readonly replaceAll?: boolean },
  label: HostCallLabel,
  signal: AbortSignal | undefined,
): Promise<FileEdit> {
  const { jail, maxFileBytes } = options;
  const { tool, expected } = label;
  if (jail.scope === 'read-only') throw hostDenial(tool, 'scope_denied');
  if (edit.oldText.length === 0) throw hostFailure(tool, 'the text to replace is empty');
  const { bytes, size } = await readJailedBytes(jail, requested, maxFileBytes, tool, expected);
  if (size > bytes.byteLength) throw hostDenial(tool, 'too_large');
  const text = decodeText(bytes, true);
  if (text === undefined) throw hostDenial(tool, 'not_a_file');
  const occurrences = text.split(edit.oldText).length - 1;
  if (occurrences === 0) throw hostFailure(tool, 'the text to replace was not found; read the file again');
  if (occurrences > 1 && edit.replaceAll !== true) {
    throw hostFailure(tool, `the text to replace occurs ${occurrences} times; include more surrounding text or set replaceAll`);
  }
  const updated = edit.replaceAll === true ? text.replaceAll(edit.oldText, () => edit.newText) : text.replace(edit.oldText, () => edit.newText);
  const expectedSha256 = createHash('sha256').update(bytes).digest('hex');
  const written = await writeJailedFile({ jail, path: requested, content: updated, maxBytes: maxFileBytes, expectedSha256, tool, expected, signal });
  return { bytes: written.bytes, sha256: written.sha256, replacements: edit.replaceAll === true ? occurrences : 1 };
}
