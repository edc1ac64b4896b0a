/**
 * Run synchronous work behind the async seam: a throw becomes a rejection,
 * never a synchronous exception. A promise the work returns (a commit's) is
 * handed back as it is, not wrapped in another that would take two more
 * microtasks to follow it.
 */
export function promised<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    const value = work();
    return value instanceof Promise ? value : Promise.resolve(value);
  } catch (error) {
    return new Promise(() => {
      throw error;
    });
  }
}
