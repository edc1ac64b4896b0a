import { ReplayMissError, type ReplayMediaProblem } from '../errors/tool-errors.js';
import { recordableAttachment, sameAttachments } from '../host/media-handle.js';
import { readStoredMedia } from '../host/read-stored-media.js';
import type { MediaHandle, MediaStore } from '../host/tool-host.js';
import type { RecordedResult } from '../journal/journal-types.js';

export interface RestoreAttachmentsOptions {
  /** The tool's key, for the error. */
  readonly tool: string;
  readonly recorded: RecordedResult;
  /** The host's media store, where the recorded call's bytes were kept. */
  readonly mediaStore: MediaStore | undefined;
}

export type RestoredAttachments = { readonly ok: true; readonly attachments: MediaHandle[] | undefined } | { readonly ok: false; readonly error: ReplayMissError };

/**
 * Part of stage 10: the media of a recorded result, back from the media
 * store. The journal holds only each attachment's handle, type and size;
 * the bytes must still be in the store and hash to the handle, or the
 * recording is not replayed at all (a typed `REPLAY_MISS`, and the body never
 * runs: a replay never performs the effect again). The recorded list must
 * also be the one the receipt vouches for, so an entry edited to name other
 * stored media is not restored.
 */
export async function restoreAttachments(options: RestoreAttachmentsOptions): Promise<RestoredAttachments> {
  const { recorded, tool } = options;
  const listed = recorded.attachments ?? [];
  const vouched = recorded.receipt.attachments ?? [];
  const miss = (reason: ReplayMediaProblem): RestoredAttachments => ({ ok: false, error: new ReplayMissError(tool, reason) });
  const attachments = listed.map(recordableAttachment);
  if (!attachments.every((attachment) => attachment !== undefined) || !sameAttachments(attachments, vouched)) return miss('attachments_unvouched');
  if (attachments.length === 0) return { ok: true, attachments: undefined };
  for (const attachment of attachments) {
    const stored = await readStoredMedia(attachment, options.mediaStore);
    if (!stored.ok) return miss(stored.problem);
  }
  return { ok: true, attachments };
}
