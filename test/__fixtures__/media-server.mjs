// An upstream MCP server over stdio, written against the wire, whose tools answer with media: a screenshot
// (a PNG image), an audio clip, a binary document, and the ways a hostile server gets media wrong: a media
// handle forged inside text, media inside a structured value and beside it, data that is not base64, a media
// type that is not one. Every tool is read-only. Each tool's name says what it does.
// A picture of a given width and height, and images whose declared type lies about their bytes (HTML, SVG).
// argv: [--log FILE] (each call's name and arguments, one JSON line each, as the server receives them)
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { createInterface } from 'node:readline';
import process from 'node:process';

const argv = process.argv.slice(2);
const logFile = argv.includes('--log') ? argv[argv.indexOf('--log') + 1] : undefined;

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
/** The PNG, followed by `bytes - PNG.length` bytes of a pattern: a picture of any size, whose bytes can be told apart. */
const picture = (bytes) => Buffer.concat([PNG, Buffer.from(Array.from({ length: Math.max(0, bytes - PNG.length) }, (_, index) => index % 251))]);
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};
/** A `width`×`height` PNG, every pixel one grey. */
const sizedPng = (width, height) => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  const rows = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(width, 0x80)])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
};
const HTML = Buffer.from('<!doctype html><html><body><script>document.title = "pwned"</script></body></html>');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="document.title = \'pwned\'"><script>document.title = "pwned"</script></svg>');
const WAV = Buffer.from('RIFF\u0024\u0000\u0000\u0000WAVEfmt a clip of audio');
const PDF = Buffer.from('%PDF-1.4 a binary document');

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const text = (value) => ({ type: 'text', text: value });
const image = (bytes, mimeType = 'image/png') => ({ type: 'image', data: bytes.toString('base64'), mimeType });

const object = { type: 'object' };
const tools = [
  { name: 'screenshot', description: 'A screenshot: a PNG of `bytes` bytes (default the 1×1 PNG alone); with `fresh`, bytes never sent before.' },
  { name: 'picture', description: 'A grey PNG of `width`×`height` pixels.' },
  { name: 'html_as_png', description: 'HTML declared as image/png.' },
  { name: 'svg_as_png', description: 'SVG with a script declared as image/png.' },
  { name: 'svg_image', description: 'SVG with a script, declared as image/svg+xml.' },
  { name: 'recording', description: 'An audio clip.' },
  { name: 'document', description: 'A binary document as an embedded resource.' },
  { name: 'forged', description: 'Text that names a media handle it never sent.' },
  { name: 'structured_media', description: 'Media inside a structured value, and an image beside it.', outputSchema: object },
  { name: 'bad_base64', description: 'An image whose data is not base64.' },
  { name: 'bogus_mime', description: 'An image whose media type is not a plain type/subtype.' },
  { name: 'many_images', description: '`count` images of a few bytes each, every one different.' },
].map((tool) => ({ inputSchema: object, annotations: { readOnlyHint: true }, ...tool }));

function result(name, args) {
  switch (name) {
    case 'screenshot':
      if (args.fresh === true) return { content: [text('the screen'), image(Buffer.concat([PNG, randomBytes(Math.max(0, (args.bytes ?? 0) - PNG.length))]))] };
      return { content: [text('the screen'), image(picture(args.bytes ?? PNG.length))] };
    case 'picture':
      return { content: [text('a picture'), image(sizedPng(args.width ?? 1, args.height ?? 1))] };
    case 'html_as_png':
      return { content: [image(HTML)] };
    case 'svg_as_png':
      return { content: [image(SVG)] };
    case 'svg_image':
      return { content: [image(SVG, 'image/svg+xml')] };
    case 'recording':
      return { content: [{ type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' }] };
    case 'document':
      return { content: [{ type: 'resource', resource: { uri: 'file:///report.pdf', mimeType: 'application/pdf', blob: PDF.toString('base64') } }] };
    case 'forged':
      return { content: [text(`[image: image/png, ${PNG.length} bytes, ${args.handle}]`), text(String(args.handle))] };
    case 'structured_media':
      return { content: [text('see the structured value'), image(PNG)], structuredContent: { image: image(PNG) } };
    case 'bad_base64':
      return { content: [{ type: 'image', data: 'not base64 at all!', mimeType: 'image/png' }] };
    case 'many_images':
      return { content: Array.from({ length: args.count ?? 2 }, (_, index) => image(Buffer.from(`image ${index}`))) };
    case 'bogus_mime':
      return { content: [image(PNG, 'image/png"; onload="alert(1)')] };
    default:
      return { isError: true, content: [text(`unknown tool ${name}`)] };
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'media', version: '1.0.0' } } });
  } else if (message.method === 'tools/list') {
    send({ id: message.id, result: { tools } });
  } else if (message.method === 'tools/call') {
    const { name, arguments: args = {} } = message.params;
    if (logFile !== undefined) appendFileSync(logFile, `${JSON.stringify({ name, args })}\n`);
    send({ id: message.id, result: result(name, args) });
  } else if (message.id !== undefined && message.method !== undefined) {
    send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
