import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether a process other than this one has `text` in its command line. Processes in the gateway's sandboxes are
 * listed too: their namespaces lie within this one's, so /proc here shows them. A test waits for a process it could
 * not name by pid (a detached child of a sandboxed command) to be gone, rather than sleeping past what it would do.
 */
export function anyProcessHolds(text: string): boolean {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .some((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false; // Ended while listed.
      }
    });
}
