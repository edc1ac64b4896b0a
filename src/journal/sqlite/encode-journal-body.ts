import { exceedsJsonTextBytes, type JournalSettleInput } from '../../core/internal.js';

/**
 * Encode a recorded result. A body is stored and hashed as this text, so it
 * needs a faithful encoding, not a canonical one (the row around it is
 * canonical): plain JSON, where a non-finite number becomes null. A value
 * with no JSON form (a bigint, a cycle) is kept as a marker so the receipt
 * still lands. A value past `maxValueBytes` of JSON is not kept at all
 * (`valueNotKept`): the content the model read and the receipt still are.
 */
export function encodeResult(input: JournalSettleInput, maxValueBytes: number): string {
  const kept = keepsValue(input.value, maxValueBytes);
  const result = {
    ok: input.ok,
    ...(kept ? { value: input.value } : { valueNotKept: true }),
    content: input.content,
    error: input.error,
    ...(input.attachments === undefined ? {} : { attachments: input.attachments }),
    receipt: input.receipt,
  };
  try {
    return JSON.stringify(result);
  } catch {
    return JSON.stringify({ ...result, value: { $unserializable: true } });
  }
}

/** Whether a value is recorded: within `maxValueBytes` of JSON (a cycle never is), or nested too deep to measure (JSON.stringify then marks it). */
function keepsValue(value: unknown, maxValueBytes: number): boolean {
  if (value === undefined) return true;
  try {
    return !exceedsJsonTextBytes(value, maxValueBytes);
  } catch {
    return true;
  }
}

/** Encode an event's data; a value with no JSON form becomes a marker. */
export function encodeData(data: unknown): string {
  try {
    return JSON.stringify(data ?? null);
  } catch {
    return JSON.stringify({ $unserializable: true });
  }
}
