import { withAttachments, type MediaHandle, type MediaStore } from '../core/internal.js';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/**
 * An upstream `CallToolResult` as a tool value. `structuredContent`, when
 * present, is the value (the pipeline validates it against the declared
 * output schema and renders it as JSON for the model), and media inside it
 * are JSON like the rest. Otherwise the value is the text of the content
 * blocks. Images, audio and binary resources go to the media store and ride
 * as attachments by handle — never inline base64 — with a line that names
 * the handle in the text; without a store they are described by type and
 * size. `isError` results are handled before this.
 */
export async function mapCallToolResult(result: CallToolResult, mediaStore: MediaStore | undefined): Promise<unknown> {
  // The blocks beside a structured value reach no one (nor are they scanned): their media are not stored or attached either.
  if (result.structuredContent !== undefined) return result.structuredContent;
  const attachments: MediaHandle[] = [];
  const parts: string[] = [];
  for (const block of result.content) parts.push(await renderBlock(block, mediaStore, attachments));
  const value = parts.join('\n');
  return attachments.length === 0 ? value : withAttachments(value, attachments);
}

async function renderBlock(block: ContentBlock, mediaStore: MediaStore | undefined, attachments: MediaHandle[]): Promise<string> {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return describeMedia(block.type, block.data, block.mimeType, mediaStore, attachments);
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') return resource.text;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return describeMedia('resource', blob, resource.mimeType ?? 'application/octet-stream', mediaStore, attachments);
    }
    case 'resource_link':
      return `[resource link: ${block.name}]`;
    default:
      return '[unsupported content]';
  }
}

async function describeMedia(kind: string, base64: string, mediaType: string, mediaStore: MediaStore | undefined, attachments: MediaHandle[]): Promise<string> {
  const bytes = Uint8Array.from(Buffer.from(base64, 'base64'));
  if (mediaStore === undefined) return `[${kind}: ${safeMediaType(mediaType)}, ${bytes.byteLength} bytes, not stored: the host has no media store]`;
  const handle = await mediaStore.put(bytes, safeMediaType(mediaType));
  attachments.push(handle);
  return `[${kind}: ${handle.mediaType}, ${handle.bytes} bytes, ${handle.handle}]`;
}

/** A media type from upstream is untrusted text shown to a model: keep only a plain `type/subtype`. */
function safeMediaType(mediaType: string): string {
  return /^[a-z0-9][a-z0-9.+-]{0,63}\/[a-z0-9][a-z0-9.+-]{0,63}$/i.test(mediaType) ? mediaType.toLowerCase() : 'application/octet-stream';
}
