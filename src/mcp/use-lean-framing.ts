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
 * the transport close, exactly as the SDK's does.
 */
export function createMessageReadBuffer(maxBytes: number): MessageReadBuffer {
  let buffer: Buffer | undefined;
  return {
    append(chunk: Buffer): void {
      if ((buffer?.length ?? 0) + chunk.length > maxBytes) {
        buffer = undefined;
        throw new Error(`ReadBuffer exceeded maximum size of ${maxBytes} bytes`);
      }
      buffer = buffer === undefined ? chunk : Buffer.concat([buffer, chunk]);
    },
    readMessage(): JSONRPCMessage | null {
      if (buffer === undefined) return null;
      const newline = buffer.indexOf(0x0a);
      if (newline === -1) return null;
      const line = buffer.toString('utf8', 0, newline);
      buffer = newline + 1 === buffer.length ? undefined : buffer.subarray(newline + 1);
      return readJsonRpcLine(line);
    },
    clear(): void {
      buffer = undefined;
    },
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
