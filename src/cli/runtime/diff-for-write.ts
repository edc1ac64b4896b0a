import { isCutViewBody, MAX_VIEW_BODY, REDACTED, redactSecrets, type FsCapability, type ToolApprovalRequest } from '../../core/internal.js';

const MAX_DIFF_INPUT = 256 * 1024;

/**
 * The most time a diff may take, on the gateway's one thread, before the
 * card shows without one. A line diff costs the lines times the lines that
 * differ: a 64 KiB write of lines each unlike those of a 230 KiB file held
 * every client of the gateway for 21 s, and a model can send several.
 */
const MAX_DIFF_MS = 250;

/**
 * The diff an approver sees for a `write_file`: the file where the write
 * really lands, as it is (its real path, read through the same jailed host,
 * so a path outside the workspace shows nothing), against the proposed
 * content from the tool's own view. Display
 * only: the write itself is decided by the approval, not by this text. It
 * goes to a browser, so it is as secret-free as the rest of the preview: the
 * current content is redacted before the diff, and the diff once more.
 * A line holding a masked value never reads as unchanged: both sides show
 * `[redacted]` there whatever the values are, so a write that replaced the
 * file's token or private key with the model's drew a diff of no change.
 * Such a line shows as removed and written again, since what it holds is
 * not shown, and it may be another value.
 */
export async function diffForWrite(fs: FsCapability, request: ToolApprovalRequest): Promise<{ diff?: string } | undefined> {
  const file = request.resolved?.files[0];
  const proposed = request.view?.body;
  if (request.action !== 'fs_write' || file === undefined || proposed === undefined || request.toolName !== 'write_file') return undefined;
  // A view the engine cut would pass for the whole write as a diff: told by the line the cut adds, since masking the
  // secrets of the part shown can bring a cut view under the length a card shows. No longer view is diffed either.
  if (isCutViewBody(proposed) || proposed.length > MAX_VIEW_BODY) return undefined;
  let current = '';
  try {
    // The file where the write really lands: its real path, not the spelling the model chose, holding what it held
    // when the write was judged (its content stamp): the write is bound to that, so the diff is drawn against it.
    const read = await fs.readFile(file.real, { expected: file });
    if (read.content === undefined) return undefined;
    current = redactSecrets(read.content);
  } catch {
    // Only a new file is diffed against nothing. An existing one that cannot be read as judged (changed since,
    // too large) would be drawn as written whole into an empty file: the card shows the write itself instead.
    if (!file.created) return undefined;
    current = '';
  }
  if (current.length > MAX_DIFF_INPUT || proposed.length > MAX_DIFF_INPUT) return undefined;
  const display = request.target?.files[0]?.path ?? file.real;
  // Loaded with the first write to show: most processes never draw a diff.
  const { createTwoFilesPatch } = await import('diff');
  // Four lines around each change, jsdiff's default; the patch hands its options to its line diff, which compares lines
  // with `comparator` (jsdiff's own option of a diff) and gives up past `timeout`.
  const options = { context: 4, timeout: MAX_DIFF_MS, comparator: (left: string, right: string): boolean => left === right && !left.includes(REDACTED) };
  const patch = createTwoFilesPatch(display, display, current, proposed, 'current', 'proposed', options);
  // Given up: the card shows the write itself.
  return patch === undefined ? undefined : { diff: redactSecrets(patch) };
}
