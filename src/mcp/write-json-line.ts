import type { Readable, Writable } from 'node:stream';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { boundStdioWrites, type BoundedStdioWriter } from './bound-stdio-writes.js';
import { jsonLineParts } from './json-line-parts.js';

const CLOSED_UNREAD = 'the MCP client left too much of the output unread: the connection is closed';

export interface JsonLineWriting {
  /** The client's stream, not read while the client leaves the gateway's answers unread (`boundStdioWrites`). */
  readonly stdin: Readable;
  /** The stream the transport was made with. */
  readonly stdout: Writable;
  /** Past this many bytes the client left unread, the connection is closed: `onOverflow`. */
  readonly maxUnreadBytes: number;
  readonly onOverflow: () => void;
}

/**
 * Make the gateway's stdio server transport write each message as the SDK
 * writes it — one line of JSON — from its parts (`jsonLineParts`), handed
 * over together so a line of many parts is still one write, under the
 * backpressure of `boundStdioWrites`. A send resolves once the message is
 * handed to `stdout`: what the client has not read yet stops the reading of
 * `stdin`, not the sender. It rejects once the connection is closed for
 * what the client left unread.
 */
export function useJsonLineWriting(transport: StdioServerTransport, writing: JsonLineWriting): BoundedStdioWriter {
  const writer = boundStdioWrites({ output: writing.stdout, input: writing.stdin, maxUnreadBytes: writing.maxUnreadBytes, onOverflow: writing.onOverflow });
  transport.send = (message) => (writer.write(jsonLineParts(message)) ? Promise.resolve() : Promise.reject(new Error(CLOSED_UNREAD)));
  return writer;
}
