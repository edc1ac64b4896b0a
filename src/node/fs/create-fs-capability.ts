import { createHash } from 'node:crypto';
import type { FsCapability, MediaStore } from '../../core/internal.js';
import { hostDenial, hostFailure } from '../errors/host-denial.js';
import { decodeText } from '../stores/sniff-media-type.js';
import type { FsJail } from './fs-jail.js';
import { listJailedDirectory } from './list-jailed-directory.js';
import { readJailedBytes, readJailedFile } from './read-jailed-file.js';
import { writeJailedFile } from './write-jailed-file.js';

export interface CreateFsCapabilityOptions {
  readonly jail: FsJail;
  readonly mediaStore: MediaStore;
  readonly maxFileBytes: number;
  readonly maxListEntries?: number;
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
      readJailedFile({ jail, path: requested, maxBytes: maxFileBytes, mediaStore, offset: read.offset, limit: read.limit, tool: read.tool, expected: read.expected, signal }),
    writeFile: (requested, content, write = {}, signal) =>
      writeJailedFile({ jail, path: requested, content, maxBytes: maxFileBytes, expectedSha256: write.expectedSha256, tool: write.tool, expected: write.expected, signal }),
    listDirectory: (requested, list = {}, signal) =>
      listJailedDirectory({ jail, path: requested, depth: list.depth, includeHidden: list.includeHidden, maxEntries: options.maxListEntries ?? 5000, tool: list.tool, expected: list.expected, signal }),
    async editFile(requested, edit, label = {}, signal) {
      const { tool, expected } = label;
      if (jail.scope === 'read-only') throw hostDenial(tool, 'scope_denied');
      if (edit.oldText.length === 0) throw hostFailure(tool, 'the text to replace is empty');
      const { bytes, size } = await readJailedBytes(jail, requested, maxFileBytes, tool, expected);
      if (size > bytes.byteLength) throw hostDenial(tool, 'too_large');
      const text = decodeText(bytes);
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
    },
  };
}
