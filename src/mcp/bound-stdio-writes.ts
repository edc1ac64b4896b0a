import type { Readable, Writable } from 'node:stream';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** What the gateway lets a stdio peer leave unread before it closes the connection, by default. */
export const DEFAULT_MAX_UNREAD_BYTES = 64 * 1024 * 1024;

/** Past this many bytes unread by a peer, the gateway reads nothing more from it until they drain. */
const PAUSE_FROM_BYTES = 1024 * 1024;

export interface StdioWriteBounds {
  /** The stream to the peer. */
  readonly output: Writable;
  /** The stream from the peer: not read while `output` holds more than the pause mark. */
  readonly input: Readable;
  /** A message to write when the peer has left more than this unread closes the connection instead. */
  readonly maxUnreadBytes: number;
  /** Called once, when that happens: `output` is destroyed by then (what it held is dropped), and `input` is read again. */
  readonly onOverflow: () => void;
}

export interface BoundedStdioWriter {
  /**
   * Write one line, its parts handed to the stream together. Returns false,
   * writing nothing, once the peer has left more than `maxUnreadBytes`
   * unread (the connection is then being closed).
   */
  write(parts: readonly string[] | string): boolean;
  /** Stop pausing `input`: the connection is closing, and its end must be read. */
  stop(): void;
}

/** The pause mark for a bound: 1 MiB, or a quarter of a smaller bound, and never under the stream's own high-water mark (so a `drain` follows). */
export function pauseMarkFor(output: Writable, maxUnreadBytes: number): number {
  return Math.max(output.writableHighWaterMark, Math.min(PAUSE_FROM_BYTES, Math.floor(maxUnreadBytes / 4)));
}

/**
 * Backpressure on one stdio peer, both ways. While the gateway's output to
 * the peer holds more than the pause mark, the peer's input is not read: a
 * peer that sends requests and does not read the answers blocks itself on a
 * full pipe instead of queuing answers in the gateway without end. Reading
 * resumes on `drain`, through one listener for the stream (never one per
 * pending write). Answers to what was read before the pause still go out,
 * so a message is never refused for its size alone: a large result to a
 * slow reader arrives. A peer that has left more than `maxUnreadBytes`
 * unread when the next message is to be written is closed: what is queued
 * for it is dropped and `onOverflow` says so.
 */
export function boundStdioWrites(bounds: StdioWriteBounds): BoundedStdioWriter {
  const { output, input, maxUnreadBytes } = bounds;
  const pauseBytes = pauseMarkFor(output, maxUnreadBytes);
  let paused = false;
  let stopped = false;
  let over = false;
  const release = (): void => {
    if (!paused) return;
    paused = false;
    input.resume();
  };
  output.on('drain', () => {
    if (!stopped) release();
  });
  // A peer that went away cannot drain what it left: read its input to its end, which is how its going is noticed.
  output.once('close', release);
  // The peer closing its end makes the next write fail (EPIPE): that is the peer going away, not the gateway failing.
  output.on('error', () => undefined);
  return {
    write(parts) {
      if (over) return false;
      if (output.writableLength > maxUnreadBytes) {
        over = true;
        stopped = true;
        output.destroy();
        release();
        bounds.onOverflow();
        return false;
      }
      if (typeof parts === 'string') output.write(parts);
      else if (parts.length === 1) output.write(parts[0]);
      else {
        output.cork();
        for (const part of parts) output.write(part);
        output.uncork();
      }
      if (!paused && !stopped && output.writableLength >= pauseBytes) {
        paused = true;
        input.pause();
      }
      return true;
    },
    stop() {
      stopped = true;
      release();
    },
  };
}

/** Why the gateway closed an upstream it could not write to: `unreadOverflowReason`. */
export function unreadOverflowReason(maxUnreadBytes: number): string {
  return `it left more than ${formatBytes(maxUnreadBytes)} of the gateway's messages unread (it stopped reading its input), so the gateway closed the connection`;
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The SDK client transport's child process, a private field of this SDK version. */
interface SpawnedHolder {
  _process?: { stdin?: Writable | null; stdout?: Readable | null };
}

/**
 * Make an SDK stdio client transport write to its upstream under
 * `boundStdioWrites`, from the moment the process is spawned (the handshake
 * included). A send resolves once the message is handed to the pipe. The
 * SDK keeps the process in a field of the transport; where that field is
 * not what this version holds, the transport keeps the SDK's own writing.
 */
export function useBoundedClientWriting(transport: StdioClientTransport, maxUnreadBytes: number, onOverflow: () => void): void {
  const holder = transport as unknown as SpawnedHolder;
  const start = transport.start.bind(transport);
  const send = transport.send.bind(transport);
  let writer: BoundedStdioWriter | undefined;
  transport.start = async () => {
    await start();
    const child = holder._process;
    if (child?.stdin == null || child.stdout == null) return;
    writer = boundStdioWrites({
      output: child.stdin,
      input: child.stdout,
      maxUnreadBytes,
      onOverflow: () => {
        onOverflow();
        void transport.close().catch(() => undefined);
      },
    });
  };
  transport.send = (message) => {
    if (writer === undefined) return send(message);
    if (holder._process?.stdin == null) return Promise.reject(new Error('Not connected'));
    return writer.write(`${JSON.stringify(message)}\n`) ? Promise.resolve() : Promise.reject(new Error(unreadOverflowReason(maxUnreadBytes)));
  };
}

/** Why the gateway itself closed an upstream client's connection, by client. */
const closeReasons = new WeakMap<object, string>();

/** Say why the gateway closed this upstream client's connection: `upstreamCloseReason` reads it when the server is marked down. */
export function noteUpstreamCloseReason(client: object, reason: string): void {
  closeReasons.set(client, reason);
}

/** Why the gateway closed this upstream client's connection; undefined when the server closed it (it exited, or it is another failure). */
export function upstreamCloseReason(client: object): string | undefined {
  return closeReasons.get(client);
}
