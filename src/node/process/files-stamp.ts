import { lstatSync, statSync, type BigIntStats } from 'node:fs';

/** A stamp, and the latest change time among the files it covers (milliseconds, as `Date.now()`). */
export interface FilesStamp {
  readonly text: string;
  readonly newestChangeMs: number;
}

/** How far a file system's change times may trail the clock (a coarse clock tick), in milliseconds. */
const CHANGE_TIME_SLACK_MS = 20;

/**
 * A stamp of `files` (absolute), after the `leading` parts it is to hold
 * too: each file as named and where its links lead, by inode, size and
 * change times to the nanosecond, a missing one as missing. A file written
 * changes its change time, which no program can set back, so the same stamp
 * is the same content.
 */
export function stampFiles(files: readonly string[], leading: readonly string[] = []): FilesStamp {
  const parts = [...leading];
  let newestChangeNs = 0n;
  for (const file of files) {
    // As named (a link swapped) and where it leads (the file read).
    for (const stats of [lstatSync(file, { bigint: true, throwIfNoEntry: false }), statOrMissing(file)]) {
      if (stats === undefined) {
        parts.push(`${file} -`);
        continue;
      }
      parts.push(`${file} ${stats.ino} ${stats.size} ${stats.mtimeNs} ${stats.ctimeNs}`);
      if (stats.ctimeNs > newestChangeNs) newestChangeNs = stats.ctimeNs;
    }
  }
  return { text: parts.join('\0'), newestChangeMs: Number(newestChangeNs / 1_000_000n) };
}

/**
 * Whether an answer read from the stamped files since `startedMs` may be
 * kept under the stamp: only when no file it covers changed since the read
 * began. A change made while they were read could be one the read did not
 * see, under a stamp that already holds it.
 */
export function settledBefore(stamp: FilesStamp, startedMs: number): boolean {
  return stamp.newestChangeMs < startedMs - CHANGE_TIME_SLACK_MS;
}

/** `stat`, following links; undefined for a file missing, a dangling link or a loop. */
function statOrMissing(absolute: string): BigIntStats | undefined {
  try {
    return statSync(absolute, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
