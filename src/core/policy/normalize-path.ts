/**
 * A lexical path view for policy decisions. Both separators count (a
 * backslash is a separator on Windows hosts, so treating it as one fails
 * closed), `.` and empty segments drop, `..` pops. Nothing touches a
 * filesystem: symlinks are the host's business (it re-checks real paths).
 */
export interface NormalizedPath {
  /** The path is absolute (`/x`, `C:\x`, `\\server\x`, `~/x`). */
  readonly absolute: boolean;
  /** Normalised with `/` separators; absolute paths keep their root. */
  readonly path: string;
  /** Relative to the first root containing it; undefined when outside every root. */
  readonly relative: string | undefined;
  /** A relative path climbed above its base with `..`. */
  readonly escapes: boolean;
}

export function normalizePath(input: string, roots: readonly string[] = []): NormalizedPath | undefined {
  if (typeof input !== 'string' || input.length === 0 || input.includes('\0')) return undefined;
  const unified = input.replace(/\\/g, '/');
  const drive = /^[A-Za-z]:\//.exec(unified)?.[0];
  // `~` and `~/x` are treated as home (absolute, fail closed); `~user` is an ordinary name.
  const home = unified === '~' || unified.startsWith('~/');
  const absolute = drive !== undefined || unified.startsWith('/') || home;
  const root = drive ?? (home ? '~/' : unified.startsWith('/') ? '/' : '');
  const rest = unified.slice(drive !== undefined ? drive.length : home ? 1 : 0);
  const segments: string[] = [];
  let escapes = false;
  for (const segment of rest.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) escapes = true;
      else segments.pop();
      continue;
    }
    segments.push(segment);
  }
  const joined = segments.join('/');
  const path = absolute ? `${root}${joined}` : joined.length === 0 ? '.' : joined;
  let relative: string | undefined;
  if (!absolute) {
    relative = escapes ? undefined : path;
  } else {
    for (const base of roots) {
      const normalBase = normalizePath(base);
      if (normalBase === undefined || !normalBase.absolute) continue;
      const prefix = normalBase.path.endsWith('/') ? normalBase.path : `${normalBase.path}/`;
      if (path === normalBase.path) relative = '.';
      else if (path.startsWith(prefix)) relative = path.slice(prefix.length);
      if (relative !== undefined) break;
    }
  }
  return { absolute, path, relative, escapes: escapes && !absolute };
}
