import type { ServerResponse } from 'node:http';
import { readStoredMedia, type MediaStore } from '../core/internal.js';
import { securityHeaders, sendJson } from './console-responses.js';
import type { AuditSource } from './console-types.js';
import { rasterImageTypeOf } from './raster-image-type.js';

/**
 * `GET /api/media/<hex>`: the bytes of an attachment a receipt of the audit
 * lists, from the media store, re-hashed and of the recorded size. Any other
 * file the store holds is not the console's to show, whatever its name. A
 * raster image whose bytes are what its type says is served as that image;
 * anything else only as a download of opaque bytes. Either way the answer
 * is never sniffed, runs nothing and loads nothing (`sandbox`).
 */
export async function sendMedia(response: ServerResponse, digest: string, audit: AuditSource, store: MediaStore | undefined): Promise<void> {
  const attachment = await audit.attachment?.(`media:sha256:${digest}`);
  if (attachment === undefined) return sendJson(response, 404, { error: 'no receipt lists these media' });
  const stored = await readStoredMedia(attachment, store);
  if (!stored.ok) return sendJson(response, 404, { error: 'the media store no longer holds these media intact' });
  const image = rasterImageTypeOf(attachment.mediaType, stored.bytes);
  response.writeHead(200, {
    ...securityHeaders(),
    'content-security-policy': "default-src 'none'; sandbox",
    'content-length': String(stored.bytes.byteLength),
    ...(image === undefined ? { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${digest}.bin"` } : { 'content-type': image }),
  });
  response.end(stored.bytes);
}
