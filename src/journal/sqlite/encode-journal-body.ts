import type { JournalSettleInput } from '../../core/internal.js';

/**
 * Encode a recorded result. A body is stored and hashed as this text, so it
 * needs a faithful encoding, not a canonical one (the row around it is
 * canonical): plain JSON, where a non-finite number becomes null. A value
 * with no JSON form (a bigint, a cycle) is kept as a marker so the receipt
 * still lands.
 */
export function encodeResult(input: JournalSettleInput): string {
  const result = { ok: input.ok, value: input.value, content: input.content, error: input.error, ...(input.attachments === undefined ? {} : { attachments: input.attachments }), receipt: input.receipt };
  try {
    return JSON.stringify(result);
  } catch {
    return JSON.stringify({ ...result, value: { $unserializable: true } });
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
