/** Releases a hold; calling it again does nothing. */
export type ReleasePaths = () => void;

/** Holds on absolute real paths, one holder at a time per path, shared by the host's capabilities. */
export interface PathLocks {
  /**
   * Take a place in line for every one of `paths` at once, in the order the
   * holders asked, and resolve once all are this holder's, until the
   * returned function is called. Since a holder joins every line in the same
   * instant, two holders of overlapping sets never wait on each other.
   */
  acquire(paths: readonly string[]): Promise<ReleasePaths>;
}

/**
 * The host's file writes and its command starts, kept from interleaving on
 * the same file: a command's argument files are checked against what was
 * approved and then held while the program starts and reads them, and a
 * write of one of them waits for that hold (or a start waits for the write
 * in progress, and then finds the file changed). Without it a write landing
 * between the check and the program's own read would run bytes nobody
 * approved. In memory, for this host's capabilities only.
 */
export function createPathLocks(): PathLocks {
  const tails = new Map<string, Promise<void>>();
  /** Join the line for `path` now; `turn` resolves when the holder before has released. */
  const join = (path: string): { turn: Promise<void>; release: ReleasePaths } => {
    const turn = tails.get(path) ?? Promise.resolve();
    let open: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      open = resolve;
    });
    const tail = turn.then(() => done);
    tails.set(path, tail);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      open();
      // The last holder in line leaves no entry behind.
      if (tails.get(path) === tail) tails.delete(path);
    };
    return { turn, release };
  };
  return {
    async acquire(paths) {
      const places = [...new Set(paths)].map(join);
      const release = (): void => {
        for (const place of places) place.release();
      };
      await Promise.all(places.map((place) => place.turn));
      return release;
    },
  };
}
