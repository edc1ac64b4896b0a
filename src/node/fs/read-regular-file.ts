import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * A file's bytes, only when it is a regular file: opened without blocking,
 * so a FIFO a command put there cannot hold the host's one thread, and
 * judged by what was opened, so a link leads where it leads. Anything else
 * throws.
 */
export function readRegularFile(file: string): Buffer {
  const descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(descriptor).isFile()) throw new Error('not a regular file');
    return readFileSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
