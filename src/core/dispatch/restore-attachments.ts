import { sha256BytesHex } from '../digest/sha256.js';
import { ReplayMissError, type ReplayMediaProblem } from '../errors/tool-errors.js';
import { mediaDigestOf, recordableAttachment, sameAttachments } from '../host/media-handle.js';
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
    const problem = await checkStored(attachment, options.mediaStore);
    if (problem !== undefined) return miss(problem);
  }
  return { ok: true, attachments };
}

async function checkStored(attachment: MediaHandle, store: MediaStore | undefined): Promise<ReplayMediaProblem | undefined> {
  let stored: Awaited<ReturnType<MediaStore['get']>>;
  try {
    stored = await store?.get(attachment.handle);
  } catch {
    // A store that cannot read (a replay host without one refuses every read) holds nothing to restore.
    stored = undefined;
  }
  if (stored === undefined) return 'media_missing';
  // The store checks its own reads; the engine checks again, since any store may be plugged in.
  const matches = stored.bytes.byteLength === attachment.bytes && (await sha256BytesHex(stored.bytes)) === mediaDigestOf(attachment.handle);
  return matches ? undefined : 'media_changed';
}
