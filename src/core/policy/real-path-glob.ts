import { literalPathGlob } from './protected-paths.js';

/** Where an absolute path really leads: its links resolved, a path that does not exist yet by its deepest folder that does. */
export type RealPath = (path: string) => string;

/** A character picomatch reads as a pattern: a segment holding one names no single folder to resolve. */
const GLOB_CHARACTER = /[\\*?[\]{}()!+@]/;

/**
 * An absolute glob as it reads where its folders really lead: the names
 * before its first pattern segment resolved by `realPath`, the rest kept.
 * `/home-link/proj/keys/**` under a home that is a link, or
 * `/link/proj/secret.txt`, names a workspace file whose real path is another
 * spelling, and a call's path is judged as it really is. Undefined when the
 * glob is not absolute or its folders lead where they say.
 */
export function realPathGlob(glob: string, realPath: RealPath): string | undefined {
  if (!glob.startsWith('/')) return undefined;
  const segments = glob.split('/');
  let literal = 1;
  while (literal < segments.length && !GLOB_CHARACTER.test(segments[literal] as string)) literal += 1;
  const named = segments.slice(0, literal).join('/') || '/';
  const real = realPath(named);
  if (real === named || !real.startsWith('/')) return undefined;
  const rest = segments.slice(literal).join('/');
  // The real path is a name, not a pattern: a `[` or `*` in it matches only itself.
  const base = literalPathGlob(real).replace(/\/+$/, '');
  return literal === segments.length ? base : `${base}/${rest}`;
}
