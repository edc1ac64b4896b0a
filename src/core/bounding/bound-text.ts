import type { ToolResultLimits } from '../host/tool-host.js';

/** Model-facing defaults: 32 KiB and 2,000 lines. */
export const DEFAULT_TOOL_RESULT_LIMITS: ToolResultLimits = Object.freeze({ maxBytes: 32 * 1024, maxLines: 2000 });

export interface BoundedText {
  /** The prefix that fits, cut on a UTF-8 character boundary. */
  readonly preview: string;
  readonly truncated: boolean;
  /** UTF-8 bytes in the preview. */
  readonly previewBytes: number;
  readonly previewLines: number;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(DEFAULT_TOOL_RESULT_LIMITS.maxBytes);

/**
 * Cut `text` to at most `maxBytes` UTF-8 bytes and `maxLines` lines in
 * O(limit): it never encodes the whole text. A UTF-16 code unit is at least
 * one UTF-8 byte, so the first `maxBytes` code units always hold enough to
 * fill the budget; `encodeInto` stops before a character that would not fit,
 * so the cut never splits one (nor a surrogate pair).
 */
export function boundText(text: string, limits: ToolResultLimits): BoundedText {
  const { maxBytes, maxLines } = limits;
  // Line cut first: find the end of line `maxLines` within the candidate window.
  const window = text.length > maxBytes ? text.slice(0, maxBytes) : text;
  const { lineCut, lines } = cutAtLine(window, maxLines);
  const candidate = lineCut < window.length ? window.slice(0, lineCut) : window;
  if (scratch.length < maxBytes) scratch = new Uint8Array(maxBytes);
  const { read, written } = encoder.encodeInto(candidate, maxBytes === scratch.length ? scratch : scratch.subarray(0, maxBytes));
  const preview = read === candidate.length ? candidate : candidate.slice(0, read);
  const truncated = preview.length < text.length;
  return { preview, truncated, previewBytes: written, previewLines: previewLineCount(candidate, read, lines) };
}

/**
 * Whether `text` fits `limits` as it is, without encoding it: its UTF-8
 * length can exceed neither limit when three bytes per UTF-16 unit fit, so
 * only its lines are counted, and only up to `maxLines`. Undefined when
 * that cannot say (a text long enough that its bytes might not fit):
 * `boundText` decides.
 */
export function fitsWithoutEncoding(text: string, limits: ToolResultLimits): boolean | undefined {
  if (text.length * 3 > limits.maxBytes) return undefined;
  return text.length < limits.maxLines || !hasMoreLinesThan(text, limits.maxLines);
}

/**
 * Whether `text` has more than `maxLines` lines, that is at least
 * `maxLines` newlines. The scan stops as soon as it knows: at that many
 * newlines, or once more than `length - maxLines` other characters have
 * gone by, because then fewer than `maxLines` places are left for newlines
 * (a text of long lines is settled after a few of them).
 */
function hasMoreLinesThan(text: string, maxLines: number): boolean {
  const others = text.length - maxLines;
  let newlines = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    newlines += 1;
    if (newlines === maxLines) return true;
    // `index + 1 - newlines` characters so far are not newlines.
    if (index + 1 - newlines > others) return false;
  }
  return false;
}

/** Where line `maxLines` of `text` ends (its length when it has no more lines), and how many lines that holds. */
function cutAtLine(text: string, maxLines: number): { lineCut: number; lines: number } {
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (lines === maxLines) return { lineCut: index, lines };
    lines += 1;
  }
  return { lineCut: text.length, lines };
}

/**
 * Lines in `candidate.slice(0, read)`, knowing the candidate has `lines`:
 * scan whichever part is shorter, the preview or the tail the byte cut dropped.
 */
function previewLineCount(candidate: string, read: number, lines: number): number {
  if (read === 0) return 0;
  if (read === candidate.length) return lines;
  if (read <= candidate.length - read) return newlines(candidate, 0, read) + 1;
  return lines - newlines(candidate, read, candidate.length);
}

function newlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}

/** The explicit marker appended after a preview. */
export function truncationMarker(bounded: BoundedText, totalCharacters: number, spill: { handle: string; bytes: number } | undefined): string {
  const shown = `showing the first ${bounded.previewBytes} bytes (${bounded.previewLines} lines)`;
  return spill === undefined
    ? `\n[toolgate: output truncated — ${shown} of about ${totalCharacters} characters; the full output was not stored]`
    : `\n[toolgate: output truncated — ${shown} of ${spill.bytes} bytes; full output: ${spill.handle}]`;
}
