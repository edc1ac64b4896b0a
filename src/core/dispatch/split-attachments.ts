import { ToolOutputInvalidError } from '../errors/tool-errors.js';
import { recordableAttachment } from '../host/media-handle.js';
import type { MediaHandle } from '../host/tool-host.js';
import type { ResolvedDispatchState, StageResult } from './dispatch-state.js';

const envelope = Symbol('toolgate.attachments');

interface AttachmentEnvelope {
  readonly [envelope]: true;
  readonly value: unknown;
  readonly attachments: readonly MediaHandle[];
}

/**
 * A tool that answers with media returns `withAttachments(value, handles)`.
 * Handles only — never inline base64. The pipeline splits the envelope off
 * at the dispatch boundary, so every later stage sees the plain value.
 */
export function withAttachments<T>(value: T, attachments: readonly MediaHandle[]): T {
  return { [envelope]: true, value, attachments } as AttachmentEnvelope as unknown as T;
}

/**
 * Stage 13: split media attachments off the result. A journaled call records
 * its attachments by handle, type and size, and a replay restores them from
 * the media store by checking the bytes against the handle: so each must be
 * a content-addressed handle (`media:sha256:<hex>`) of a plain media type.
 */
export function splitAttachments(state: ResolvedDispatchState, result: StageResult): StageResult {
  if (!result.ok || typeof result.value !== 'object' || result.value === null || !(envelope in result.value)) return result;
  const { value, attachments } = result.value as AttachmentEnvelope;
  if (state.features.journalTier === 'none') {
    state.attachments = [...attachments];
    return { ok: true, value };
  }
  const recordable = attachments.map(recordableAttachment);
  if (!recordable.every((attachment) => attachment !== undefined)) {
    return { ok: false, error: new ToolOutputInvalidError(state.tool.key, [], 'a journaled call can return only content-addressed media handles') };
  }
  state.attachments = recordable;
  return { ok: true, value };
}
