import picomatch from 'picomatch/posix.js';
import type { NormalizedPath } from './normalize-path.js';

/**
 * Paths no mode, rule or remembered approval may auto-approve a write to:
 * repository internals, environment and credential files, shell startup
 * files and toolgate's own configuration and journal. Matched
 * case-insensitively on any path segment (case-insensitive filesystems and
 * `.SSH/` tricks fail closed).
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = Object.freeze([
  '**/.git/**',
  '**/.git',
  '**/.env*',
  '**/.ssh/**',
  '**/.npmrc',
  '**/.yarnrc*',
  '**/.pypirc',
  '**/.netrc',
  '**/.gitconfig',
  '**/.gnupg/**',
  '**/.aws/**',
  '**/.kube/**',
  '**/.docker/config.json',
  '**/.bashrc',
  '**/.bash_profile',
  '**/.bash_login',
  '**/.bash_logout',
  '**/.profile',
  '**/.zshrc',
  '**/.zshenv',
  '**/.zprofile',
  '**/.zlogin',
  '**/.cshrc',
  '**/.tcshrc',
  '**/.kshrc',
  '**/.config/fish/**',
  '**/.toolgate/**',
  '**/toolgate.config.*',
  '**/*.toolgate-journal*',
  '**/.claude/settings*.json',
  '**/.gemini/**',
]);

export type ProtectedPathMatcher = (path: NormalizedPath) => boolean;

/** Compile the defaults plus user additions (gitignore-style: a pattern without `/` matches at any depth). */
export function createProtectedPathMatcher(additions: readonly string[] = []): ProtectedPathMatcher {
  return compilePathMatcher([...DEFAULT_PROTECTED_PATHS, ...additions.map((addition) => withChildren(gitignoreGlob(addition)))]);
}

/** A matcher for gitignore-style globs alone, read the way protected paths are (case-insensitive, any depth). */
export function createPathMatcher(globs: readonly string[]): ProtectedPathMatcher {
  return compilePathMatcher(globs.map((glob) => withChildren(gitignoreGlob(glob))));
}

function compilePathMatcher(patterns: readonly string[]): ProtectedPathMatcher {
  // Compiled on first use: importing the engine (and its default floor) stays cheap.
  let compiled: RegExp | undefined;
  const isMatch = (candidate: string): boolean => {
    // One alternation of every pattern: a single regex run per candidate instead of one per pattern.
    compiled ??= new RegExp(patterns.map((pattern) => `(?:${picomatch.makeRe(pattern, { dot: true, nocase: true }).source})`).join('|'), 'i');
    return compiled.test(candidate);
  };
  return (path) => {
    // Check the path as given and as seen from its root, so `/home/u/.ssh/x` and `.ssh/x` both match.
    const candidates = [path.path.replace(/^[A-Za-z]:\/|^~\/|^\//, ''), path.relative].filter((entry): entry is string => entry !== undefined);
    return candidates.some((candidate) => {
      // Windows drops trailing dots and spaces and reads `name::$DATA` as `name`: `.git./config` is `.git/config` there.
      const windows = candidate.split('/').map((segment) => segment.replace(/:.*$/s, '').replace(/[. ]+$/, '') || segment).join('/');
      return isMatch(candidate) || isMatch(`${candidate}/`) || (windows !== candidate && (isMatch(windows) || isMatch(`${windows}/`)));
    });
  };
}

/** gitignore semantics: `name` anywhere, `dir/` a directory, a leading `/` anchors to the root. */
export function gitignoreGlob(pattern: string): string {
  let glob = pattern.trim();
  // `./x` (Claude Code's workspace-relative form) and `/x` (gitignore's root form) are anchored.
  const anchored = glob.startsWith('./') || glob.startsWith('/');
  glob = glob.replace(/^\.?\//, '');
  const directory = glob.endsWith('/');
  if (directory) glob = glob.slice(0, -1);
  if (!anchored && !glob.includes('/') && !glob.startsWith('**')) glob = `**/${glob}`;
  return directory ? `${glob}/**` : glob;
}

/** A glob and, as gitignore reads a name, everything inside the folder it may name. */
export function withChildren(glob: string): string {
  return glob.endsWith('/**') ? glob : `${glob}{,/**}`;
}
