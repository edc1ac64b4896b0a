import { RELATED_TASK_META_KEY, type ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from './is-record.js';

/** What the SDK's request takes the result with: a parse that answers success and the value, or failure and an error. */
interface ResultCheck {
  safeParse(value: unknown): { success: true; data: Record<string, unknown> } | { success: false; error: Error };
}

/**
 * The SDK's `ResultSchema` check, in plain code, for the result of every
 * `tools/call` sent upstream: an object, and a `_meta` (when present) that
 * is an object whose progress token (when present) is a string or an
 * integer and whose related task (when present) names its id as a string.
 * Anything else is refused, as that schema refuses it. The zod schema
 * copies the result, and its `_meta`, on every call; this hands the
 * result on as it was read, and the gateway reads only what
 * `findMalformedCallResult` checks next.
 *
 * The SDK takes a schema without zod's own marker as a zod 3 schema, of
 * which it calls `safeParse` alone.
 */
export const UPSTREAM_RESULT_SCHEMA = {
  safeParse(value: unknown) {
    return isUpstreamResult(value) ? { success: true, data: value } : { success: false, error: new NotAnMcpResultError() };
  },
} satisfies ResultCheck as unknown as typeof ResultSchema;

/** What a result that is not one is refused with. */
export class NotAnMcpResultError extends TypeError {
  constructor() {
    super('the result is not an MCP result object');
    this.name = 'NotAnMcpResultError';
  }
}

/** Whether `value` passes the SDK's `ResultSchema` (see `UPSTREAM_RESULT_SCHEMA`). */
export function isUpstreamResult(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const meta = value._meta;
  if (meta === undefined) return true;
  if (!isRecord(meta)) return false;
  const { progressToken } = meta;
  if (progressToken !== undefined && typeof progressToken !== 'string' && !Number.isSafeInteger(progressToken)) return false;
  const related = meta[RELATED_TASK_META_KEY];
  return related === undefined || (isRecord(related) && typeof related.taskId === 'string');
}
