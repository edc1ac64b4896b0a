import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

/**
 * A file's bytes, only when it is a regular file: opened without blocking,
 * so a FIFO a command put there cannot hold the host's one thread, and
 * judged by what was opened, so a link leads where it leads. Anything else
 * throws. With `maxBytes`, only the file's first `maxBytes` bytes.
 */
export function readRegularFile(file: string, maxBytes?: number): Buffer {
  const descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(descriptor).isFile()) throw new Error('not a regular file');
    if (maxBytes === undefined) return readFileSync(descriptor);
    const head = Buffer.alloc(maxBytes);
    let length = 0;
    for (let read = -1; read !== 0 && length < maxBytes; length += read) read = readSync(descriptor, head, length, maxBytes - length, null);
    return head.subarray(0, length);
  } finally {
    closeSync(descriptor);
  }
}
