/** The longest name kept: a schema's member names are short, a model-invented key may be anything. */
const MAX_KEPT_NAME = 128;
/** The most names kept; past it the map starts over. */
const MAX_KEPT_NAMES = 4096;

/**
 * A pure function of a member name, kept. A tool's arguments have the same
 * member names call after call, so what a walk over them computes for each
 * name (its redacted form, its JSON quoting) is a map lookup after the first
 * call. Only names of at most 128 characters are kept, at most 4,096 of them:
 * a caller that invents names costs the map nothing it keeps.
 */
export function memoizeByName<T>(compute: (name: string) => T): (name: string) => T {
  const kept = new Map<string, T>();
  return (name) => {
    const found = kept.get(name);
    if (found !== undefined) return found;
    const value = compute(name);
    if (name.length <= MAX_KEPT_NAME) {
      if (kept.size >= MAX_KEPT_NAMES) kept.clear();
      kept.set(name, value);
    }
    return value;
  };
}
