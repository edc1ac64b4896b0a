import { jsonTextBytesWithin, type JournalSettleInput, type RecordedResult } from '../../core/internal.js';

/**
 * A recorded result's body as one text, its value inline. A body is stored
 * and hashed as this text, so it needs a faithful encoding, not a canonical
 * one (the row around it is canonical): plain JSON, where a non-finite
 * number becomes null. A value past `maxValueBytes` of JSON, or with no JSON
 * form (a bigint, a cycle), is not kept (`valueNotKept`): the content the
 * model read and the receipt still are, and a retry or a replay of the call
 * is refused rather than answered with something that is not its value.
 */
function encodeInline(input: JournalSettleInput, kept: boolean): string {
  const content = { content: input.content };
  if (kept) {
    try {
      return JSON.stringify(resultBody(input, { value: input.value }, content));
    } catch {
      // No JSON form: recorded as not kept, below.
    }
  }
  return JSON.stringify(resultBody(input, { valueNotKept: true }, content));
}

/** A recorded result's body, its members in the order the journal has always written them. */
function resultBody(input: JournalSettleInput, value: object, content: object): object {
  return { ok: input.ok, ...value, ...content, error: input.error, ...(input.attachments === undefined ? {} : { attachments: input.attachments }), receipt: input.receipt };
}

/** Text this long or longer is stored once, by its digest, beside the rows that name it (`ResultBlobs`). */
export const MIN_BLOB_CHARS = 4096;
const NO_BLOBS: ReadonlyMap<string, string> = new Map();
/** A content's last line up to this long stays in the body: the part of a result that differs from call to call. */
const MAX_CONTENT_TAIL_CHARS = 1024;

/** A result as the journal stores it: its body, and the long texts the body names by digest. */
export interface StoredResult {
  readonly body: string;
  /** Digest → text, each well-formed (what SQLite reads back) and hashed as such. */
  readonly blobs: ReadonlyMap<string, string>;
}

/**
 * A recorded result (`encodeInline`), with a content or a kept value of `MIN_BLOB_CHARS` or more
 * (the value as JSON) stored aside, named in the body by its SHA-256
 * (`contentBlob`, `valueBlob`): the chain covers the digest, and the text is
 * checked against it when it is read. The same text, a file read again and
 * again, is then stored once: a model that asked for the same 60 KB file
 * over and over grew the journal by the file and its preview each time. A
 * content's last line, when short, stays in the body (`contentTail`): a
 * preview ends on the line naming where its whole output was spilled, new
 * for every call.
 */
export function encodeStoredResult(input: JournalSettleInput, maxValueBytes: number, sha256: (text: string) => string): StoredResult {
  // The text the call rendered is what is written, so it is what is measured: the object may have changed since.
  const { kept, mayBeLong } = input.valueJson === undefined ? measureValue(input.value, maxValueBytes) : { kept: Buffer.byteLength(input.valueJson) <= maxValueBytes, mayBeLong: true };
  const longContent = typeof input.content === 'string' && input.content.length >= MIN_BLOB_CHARS;
  // Most results are short: when neither part can be long the body is what it always was, and a long one is not
  // written whole only to be written again with its long parts aside (for a 60 KB read, its value and preview twice).
  if (!longContent && !mayBeLong) return { body: encodeInline(input, kept), blobs: NO_BLOBS };
  const blobs = new Map<string, string>();
  const aside = (text: string): string => {
    const wellFormed = text.toWellFormed();
    const digest = sha256(wellFormed);
    blobs.set(digest, wellFormed);
    return digest;
  };
  const valueText = kept && input.value !== undefined ? (input.valueJson ?? jsonOf(input.value)) : undefined;
  const keptValue = kept && valueText !== NO_JSON;
  const longValue = typeof valueText === 'string' && valueText.length >= MIN_BLOB_CHARS;
  if (!longValue && !longContent) return { body: encodeInline(input, keptValue), blobs };
  const value = !keptValue ? { valueNotKept: true } : longValue ? { valueBlob: aside(valueText) } : typeof valueText === 'string' ? { value: JSON.parse(valueText) as unknown } : {};
  return { body: JSON.stringify(resultBody(input, value, longContent ? contentAside(input.content, aside) : { content: input.content })), blobs };
}

/** A long content stored aside, but for a short last line. */
function contentAside(content: string, aside: (text: string) => string): { contentBlob: string; contentTail?: string } {
  const cut = content.lastIndexOf('\n');
  if (cut <= 0 || content.length - cut > MAX_CONTENT_TAIL_CHARS) return { contentBlob: aside(content) };
  return { contentBlob: aside(content.slice(0, cut)), contentTail: content.slice(cut) };
}

/** A stored body read back whole: each text it names taken from `blobText`. One missing or changed reads as a value not kept, so it answers no retry or replay. */
export function decodeStoredResult(body: string, blobText: (digest: string) => string | undefined): RecordedResult {
  const stored = JSON.parse(body) as Record<string, unknown>;
  const { valueBlob, contentBlob, contentTail, ...rest } = stored;
  if (valueBlob === undefined && contentBlob === undefined) return stored as unknown as RecordedResult;
  const value = typeof valueBlob === 'string' ? blobText(valueBlob) : undefined;
  const content = typeof contentBlob === 'string' ? blobText(contentBlob) : undefined;
  const lost = (valueBlob !== undefined && value === undefined) || (contentBlob !== undefined && content === undefined);
  return {
    ...rest,
    ...(value === undefined ? {} : { value: JSON.parse(value) as unknown }),
    ...(content === undefined ? {} : { content: typeof contentTail === 'string' ? content + contentTail : content }),
    ...(contentBlob !== undefined && content === undefined ? { content: '' } : {}),
    ...(lost ? { valueNotKept: true } : {}),
  } as unknown as RecordedResult;
}

/**
 * The digests a stored body names (`valueBlob`, `contentBlob`), read as
 * `decodeStoredResult` reads them: with JSON.parse, not SQLite's JSON
 * functions, which stop at 1,000 levels of nesting (a tool's result can nest
 * deeper) and would disagree with the decoder on such a body.
 */
export function namedBlobs(body: string): string[] {
  const stored = JSON.parse(body) as Record<string, unknown>;
  return [stored.valueBlob, stored.contentBlob].filter((digest): digest is string => typeof digest === 'string');
}

/**
 * Whether a receipt body may name a stored text: a SQL filter that reads no
 * JSON. The encoder writes a name it sets as `"valueBlob":"` (JSON.stringify,
 * no space, no escape): a body without either string names none. One with
 * it nested in a value is told apart by `namedBlobs`.
 */
export const MAY_NAME_BLOBS_SQL = `(instr(body, '"valueBlob":"') > 0 OR instr(body, '"contentBlob":"') > 0)`;

const NO_JSON = Symbol('no JSON form');

/** A value's JSON (undefined for a function, as JSON leaves it out), or `NO_JSON` for one that has none (a bigint, a cycle). */
function jsonOf(value: unknown): string | undefined | typeof NO_JSON {
  try {
    return JSON.stringify(value);
  } catch {
    return NO_JSON;
  }
}

/**
 * Whether a value is recorded: within `maxValueBytes` of JSON (a cycle never is), or nested too deep to measure
 * (JSON.stringify then decides). And whether its JSON text may be `MIN_BLOB_CHARS` long, from the same walk:
 * measured without its escapes, it is not when that measure is within a sixth of it (an escape takes at most six
 * bytes a character, and a character at least one).
 */
function measureValue(value: unknown, maxValueBytes: number): { readonly kept: boolean; readonly mayBeLong: boolean } {
  if (value === undefined) return { kept: true, mayBeLong: false };
  let bytes: number | undefined;
  try {
    bytes = jsonTextBytesWithin(value, maxValueBytes);
  } catch {
    return { kept: true, mayBeLong: true };
  }
  return bytes === undefined ? { kept: false, mayBeLong: false } : { kept: true, mayBeLong: bytes > Math.floor(MIN_BLOB_CHARS / 6) };
}

/** Encode an event's data; a value with no JSON form becomes a marker. */
export function encodeData(data: unknown): string {
  try {
    return JSON.stringify(data ?? null);
  } catch {
    return JSON.stringify({ $unserializable: true });
  }
}
