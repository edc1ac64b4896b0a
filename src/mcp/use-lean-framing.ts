import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readJsonRpcLine } from './read-json-rpc-line.js';

/** What a stdio transport asks of its read buffer. */
export type MessageReadBuffer = Pick<ReadBuffer, 'append' | 'readMessage' | 'clear'>;

/** A chunk shorter than this is copied into the read buffer's own tail instead of being kept as it came. */
const SMALL_CHUNK_BYTES = 16 * 1024;
/** The tail small chunks are copied into. */
const TAIL_BYTES = 64 * 1024;

/**
 * The SDK's read buffer with the gateway's message reading
 * (`readJsonRpcLine`): newline-delimited messages, at most `maxBytes`
 * buffered — past it the buffer is emptied and `append` throws, which makes
 * the transport close, exactly as the SDK's does. Unlike the SDK's, it
 * keeps the chunks of a message apart until its newline arrives and looks
 * for that newline only in bytes it has not searched yet, so a large result
 * that arrives in many chunks is copied once and scanned once.
 *
 * What it holds costs about what `maxBytes` says, however the bytes are
 * cut: a chunk costs a few hundred bytes of its own beyond its payload,
 * so a line dripped a byte at a time would cost a hundred times its length
 * if every chunk were kept. Chunks under 16 KiB are copied into one tail
 * of 64 KiB, and what the tail holds of an unfinished line is copied out
 * whole when it fills or a larger chunk follows.
 */
export function createMessageReadBuffer(maxBytes: number): MessageReadBuffer {
  /** What came before the tail's bytes, in order. */
  let chunks: Buffer[] = [];
  let bytes = 0;
  /** Chunks before this index hold no newline. */
  let searched = 0;
  let tail: Buffer | undefined;
  /** The tail's bytes are `tail[tailStart, tailEnd)`; those before `tailSearched` hold no newline. */
  let tailStart = 0;
  let tailEnd = 0;
  let tailSearched = 0;
  const clear = (): void => {
    chunks = [];
    bytes = 0;
    searched = 0;
    tail = undefined;
    tailStart = tailEnd = tailSearched = 0;
  };
  /** Move the tail's bytes into a chunk of their own, exactly as long, and empty the tail. */
  const sealTail = (): void => {
    if (tail === undefined || tailEnd === tailStart) return;
    const sealed = Buffer.allocUnsafeSlow(tailEnd - tailStart);
    tail.copy(sealed, 0, tailStart, tailEnd);
    const allSearched = searched === chunks.length && tailSearched === tailEnd;
    chunks.push(sealed);
    if (allSearched) searched = chunks.length;
    tailStart = tailEnd = tailSearched = 0;
  };
  return {
    append(chunk: Buffer): void {
      if (bytes + chunk.length > maxBytes) {
        clear();
        throw new Error(`ReadBuffer exceeded maximum size of ${maxBytes} bytes`);
      }
      bytes += chunk.length;
      if (chunk.length >= SMALL_CHUNK_BYTES) {
        sealTail();
        chunks.push(chunk);
        return;
      }
      if (tailEnd + chunk.length > TAIL_BYTES) sealTail();
      tail ??= Buffer.allocUnsafeSlow(TAIL_BYTES);
      chunk.copy(tail, tailEnd);
      tailEnd += chunk.length;
    },
    readMessage(): JSONRPCMessage | null {
      for (; searched < chunks.length; searched += 1) {
        const chunk = chunks[searched] as Buffer;
        const newline = chunk.indexOf(0x0a);
        if (newline === -1) continue;
        const head = chunks.slice(0, searched);
        const line = head.length === 0 ? chunk.toString('utf8', 0, newline) : Buffer.concat([...head, chunk.subarray(0, newline)]).toString('utf8');
        const rest = chunk.subarray(newline + 1);
        chunks = rest.length === 0 ? chunks.slice(searched + 1) : [rest, ...chunks.slice(searched + 1)];
        bytes = chunks.reduce((total, kept) => total + kept.length, tailEnd - tailStart);
        searched = 0;
        return readJsonRpcLine(line);
      }
      if (tail === undefined || tailSearched === tailEnd) return null;
      const found = tail.subarray(tailSearched, tailEnd).indexOf(0x0a);
      if (found === -1) {
        tailSearched = tailEnd;
        return null;
      }
      const newline = tailSearched + found;
      const line = chunks.length === 0 ? tail.toString('utf8', tailStart, newline) : Buffer.concat([...chunks, tail.subarray(tailStart, newline)]).toString('utf8');
      chunks = [];
      searched = 0;
      tailStart = tailSearched = newline + 1;
      if (tailStart === tailEnd) tailStart = tailEnd = tailSearched = 0;
      bytes = tailEnd - tailStart;
      return readJsonRpcLine(line);
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
