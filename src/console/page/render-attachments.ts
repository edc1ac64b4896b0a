import { mediaDigestOf } from '../../core/host/media-handle.js';
import type { MediaHandle } from '../../core/internal.js';
import { isRasterImageType } from '../raster-image-type.js';
import { byId, el, visible } from './dom.js';

/** Thumbnails one call shows at most; further pictures are listed as lines. */
const MAX_THUMBNAILS = 8;
/** Attachments one call lists at most: a receipt with thousands stays one screen. */
const MAX_LISTED = 50;

/**
 * What a call returned as media: a thumbnail for each raster image (loaded
 * from the console's media route only when it scrolls into view, never
 * inlined), a click shows it full size; any other attachment a line. The
 * type, size and handle come from the receipt, so they are text.
 */
export function renderAttachments(attachments: readonly MediaHandle[]): HTMLElement {
  const box = el('div', { class: 'attachments' });
  let thumbnails = 0;
  for (const attachment of attachments.slice(0, MAX_LISTED)) {
    const digest = mediaDigestOf(attachment.handle);
    const line = `${visible(attachment.mediaType)} · ${visible(attachment.bytes)} bytes · ${visible(attachment.handle)}`;
    if (digest === undefined) {
      box.appendChild(el('p', { class: 'media-line', text: line }));
      continue;
    }
    const source = `/api/media/${digest}`;
    if (isRasterImageType(attachment.mediaType) && thumbnails < MAX_THUMBNAILS) {
      thumbnails += 1;
      // `loading` before `src`: an image given its source first starts loading before it is lazy.
      const thumbnail = el('img', { class: 'media-thumb', loading: 'lazy', src: source, alt: line, onclick: () => showFullSize(source, line) });
      box.appendChild(el('figure', { class: 'media' }, thumbnail, el('figcaption', { text: line })));
    } else {
      box.appendChild(el('p', { class: 'media-line' }, document.createTextNode(`${line} `), el('a', { href: source, download: `${digest}.bin`, text: 'download' })));
    }
  }
  if (attachments.length > MAX_LISTED) box.appendChild(el('p', { class: 'muted', text: `and ${attachments.length - MAX_LISTED} more attachments` }));
  return box;
}

/** The picture at its own size in a modal dialog, scrolled when larger than the window; a click or Escape closes it. */
function showFullSize(source: string, line: string): void {
  const dialog = byId<HTMLDialogElement>('media-full');
  dialog.replaceChildren(el('p', { text: line }), el('img', { src: source, alt: line }));
  dialog.onclick = () => dialog.close();
  dialog.showModal();
}
