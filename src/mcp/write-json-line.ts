import type { Writable } from 'node:stream';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonLineParts } from './json-line-parts.js';

/**
 * Write one message to a stdio stream as the SDK writes it — one line of
 * JSON — from its parts (`jsonLineParts`), held back and handed over
 * together, so a line of many parts is still one write. Resolves once the
 * stream takes it, or on `drain` when it had to be buffered.
 */
export function writeJsonLine(stream: Writable, message: JSONRPCMessage): Promise<void> {
  return new Promise((resolve) => {
    const parts = jsonLineParts(message);
    const together = parts.length > 1;
    let taken = true;
    if (together) stream.cork();
    for (const part of parts) taken = stream.write(part);
    if (together) stream.uncork();
    if (taken) resolve();
    else stream.once('drain', resolve);
  });
}

/** Make the gateway's stdio server transport write with `writeJsonLine` to `stdout`, the stream it was made with. */
export function useJsonLineWriting(transport: StdioServerTransport, stdout: Writable): void {
  transport.send = (message) => writeJsonLine(stdout, message);
}
