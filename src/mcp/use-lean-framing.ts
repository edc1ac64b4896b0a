import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readJsonRpcLine } from './read-json-rpc-line.js';

/** What a stdio transport asks of its read buffer. */
export type MessageReadBuffer = Pick<ReadBuffer, 'append' | 'readMessage' | 'clear'>;

/**
 * The SDK's read buffer with the gateway's message reading
 * (`readJsonRpcLine`): newline-delimited messages, at most `maxBytes`
 * buffered — past it the buffer is emptied and `append` throws, which makes
 * the transport close, exactly as the SDK's does. Unlike the SDK's, it
 * keeps the chunks of a message apart until its newline arrives and looks
 * for that newline only in chunks it has not searched yet, so a large
 * result that arrives in many chunks is copied once and scanned once.
 */
export function createMessageReadBuffer(maxBytes: number): MessageReadBuffer {
  let chunks: Buffer[] = [];
  let bytes = 0;
  /** Chunks before this index hold no newline. */
  let searched = 0;
  const clear = (): void => {
    chunks = [];
    bytes = 0;
    searched = 0;
  };
  return {
    append(chunk: Buffer): void {
      if (bytes + chunk.length > maxBytes) {
        clear();
        throw new Error(`ReadBuffer exceeded maximum size of ${maxBytes} bytes`);
      }
      chunks.push(chunk);
      bytes += chunk.length;
    },
    readMessage(): JSONRPCMessage | null {
      for (; searched < chunks.length; searched += 1) {
        const chunk = chunks[searched] as Buffer;
        const newline = chunk.indexOf(0x0a);
        if (newline === -1) continue;
        const head = chunks.slice(0, searched);
        const line = head.length === 0 ? chunk.toString('utf8', 0, newline) : Buffer.concat([...head, chunk.subarray(0, newline)]).toString('utf8');
        const rest = chunk.subarray(newline + 1);
        chunks = rest.length === 0 ? [] : [rest, ...chunks.slice(searched + 1)];
        bytes = chunks.reduce((total, kept) => total + kept.length, 0);
        searched = 0;
        return readJsonRpcLine(line);
      }
      return null;
    },
    clear,
  };
}

/**
 * Make an SDK stdio transport read with `createMessageReadBuffer`. The SDK
 * keeps its buffer in a field of the transport and offers no option for the
 * reading itself; where that field is not what this version holds, the
 * transport keeps the SDK's own reading, slower and as strict. Returns
 * whether the lean reading is in place.
 */
export function useLeanFraming(transport: StdioClientTransport | StdioServerTransport, maxBytes: number): boolean {
  const holder = transport as unknown as { _readBuffer?: MessageReadBuffer };
  if (!(holder._readBuffer instanceof ReadBuffer)) return false;
  holder._readBuffer = createMessageReadBuffer(maxBytes);
  return true;
}
