import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isPlainMediaType, mediaDigestOf, readStoredMedia, type MediaHandle, type MediaStore } from '../core/internal.js';

type ContentBlock = CallToolResult['content'][number];

/**
 * The most bytes of media one result sends its client by default: 7 MiB,
 * whose base64 in the answer's JSON line stays under the 10 MiB line the
 * MCP SDK's stdio client reads at most. At 8 MiB, one image made an 11 MB
 * line: the client dropped the connection, and the gateway ended with it.
 */
export const DEFAULT_MAX_MEDIA_BYTES = 7 * 1024 * 1024;

export interface MediaContentBlocksOptions {
  /** The attachments the pipeline produced for this call: never a handle read from a result's text. */
  readonly attachments: readonly MediaHandle[];
  /** The store the call's host kept them in. */
  readonly mediaStore: MediaStore | undefined;
  /** The most bytes of media one result sends; past it, none are sent and the client is told so. */
  readonly maxBytes: number;
}

/**
 * A successful call's media as MCP content blocks, after the text that
 * names each by its handle: an image or audio block (base64, the plain media
 * type), any other type as an embedded resource blob under its handle. The
 * bytes are read back from the media store by handle and checked against
 * it (size and SHA-256) before they go out; an attachment the store does
 * not hold intact is named, not sent. Media over `maxBytes` in all are not
 * read at all: the client gets one line that says so.
 */
export async function mediaContentBlocks(options: MediaContentBlocksOptions): Promise<ContentBlock[]> {
  const total = options.attachments.reduce((sum, attachment) => sum + attachment.bytes, 0);
  if (total > options.maxBytes) return [{ type: 'text', text: `[media not sent: the media of this result exceed maxMediaBytes (${options.maxBytes} bytes)]` }];
  const blocks: ContentBlock[] = [];
  for (const attachment of options.attachments) blocks.push(await mediaBlock(attachment, options.mediaStore));
  return blocks;
}

async function mediaBlock(attachment: MediaHandle, store: MediaStore | undefined): Promise<ContentBlock> {
  const stored = await readStoredMedia(attachment, store);
  if (!stored.ok) {
    return { type: 'text', text: `[media not sent: ${mediaDigestOf(attachment.handle) === undefined ? 'an attachment without a content-addressed handle' : attachment.handle} is not in the media store intact]` };
  }
  // The type is the pipeline's, already reduced to a plain type/subtype; anything else goes as opaque bytes.
  const mimeType = isPlainMediaType(attachment.mediaType) ? attachment.mediaType : 'application/octet-stream';
  const data = Buffer.from(stored.bytes.buffer, stored.bytes.byteOffset, stored.bytes.byteLength).toString('base64');
  if (mimeType.startsWith('image/')) return { type: 'image', data, mimeType };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType };
  return { type: 'resource', resource: { uri: attachment.handle, mimeType, blob: data } };
}
