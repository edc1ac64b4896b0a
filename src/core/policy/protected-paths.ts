import { compilePathGlob } from './compile-path-glob.js';
import { firstRangeValue } from './expand-brace-range.js';
import type { RegexProgram } from './regex-program.js';
import { runRegexProgram } from './run-regex-program.js';
import { withoutTrailingRun } from './trailing-run.js';
import type { NormalizedPath } from './normalize-path.js';

/**
 * Paths no mode, rule or remembered approval may auto-approve a write to:
 * repository internals (a `.git` folder, or the `.git` file a worktree or
 * submodule has), environment files, key material and credential files,
 * shell startup files and toolgate's own configuration and journal. Matched
 * case-insensitively on any path segment (case-insensitive filesystems and
 * `.SSH/` tricks fail closed). The Node host applies the same list to the
 * real path of every read and write.
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
  '**/.git-credentials',
  '**/.config/gcloud/**',
  '**/.azure/**',
  '**/*.pem',
  '**/*.key',
  // SSH keys by their standard names (`id_rsa`, `id_ed25519_sk.pub`, a backup `id_rsa.old`), not every file that starts with `id_`.
  '**/id_{rsa,dsa,ecdsa,ed25519,xmss}*',
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
  // The scripts Claude Code's settings conventionally run as hooks (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh`): it runs
  // them by itself at the user's next session, outside toolgate, as git runs a hooks folder. A script the settings name
  // elsewhere is held by what they name (`clientRunFiles` in the Node host).
  '**/.claude/hooks/**',
  '**/.gemini/**',
  // What an MCP client reads from the project to start servers or to run its own tools without asking: a write
  // there runs the model's command outside toolgate at the client's next start (a server enabled by name is not
  // asked about again when its command changes), or turns off the client's own prompts (CVE-2025-53773).
  '**/.mcp.json',
  '**/.cursor/*.json',
  // The scripts Cursor's project hooks (`.cursor/hooks.json`) run, kept beside it.
  '**/.cursor/hooks/**',
  '**/.vscode/settings.json',
  '**/.vscode/mcp.json',
  '**/.vscode/tasks.json',
  '**/*.code-workspace',
  '**/.codex/config.toml',
  '**/opencode.json',
  '**/opencode.jsonc',
  // Everything opencode reads from its folder is what it starts or runs: its configuration, the plugins and tools
  // it loads at its start (`plugins/`, `tools/`), and the dependencies it installs from `package.json` there.
  '**/.opencode/**',
  '**/.roo/mcp.json',
  '**/.kiro/settings/*.json',
  '**/.amazonq/**/*.json',
  '**/.continue/mcpServers/**',
  '**/.zed/settings.json',
  // Qwen Code, a Gemini CLI fork, reads its servers from `.qwen/settings*.json`; Kilo Code from `.kilocode/mcp.json`
  // and, following opencode, `kilo.json(c)` and `.kilo/` (its plugins and tools too); Crush from `.crush.json`/`crush.json`, whose `lsp`
  // commands it starts too and whose `permissions.allowed_tools` run without asking.
  '**/.qwen/**',
  '**/.kilocode/mcp.json',
  '**/kilo.json',
  '**/kilo.jsonc',
  '**/.kilo/**',
  '**/.crush.json',
  '**/crush.json',
  // Hooks other agent clients run by themselves at their next session, outside toolgate: Copilot CLI loads
  // `.github/hooks/*.json` (and the scripts kept beside them) from the folder it starts in, Cline runs the scripts of
  // `.clinerules/hooks/`, Kiro the `runCommand` of each hook in `.kiro/hooks/` on a file save, Windsurf merges
  // `.windsurf/hooks.json` into Cascade's hooks, and OpenHands runs `.openhands/setup.sh` as each session begins
  // and the hooks `.openhands/hooks.json` names.
  '**/.github/hooks/**',
  '**/.clinerules/hooks/**',
  '**/.kiro/hooks/**',
  '**/.windsurf/hooks.json',
  '**/.openhands/**',
  // Factory's Droid runs the hooks of `.factory/hooks.json` (once `.factory/hooks/hooks.json`, still read) or of the
  // `hooks` key of `.factory/settings.json` and `settings.local.json`, and starts the servers of `.factory/mcp.json`;
  // Augment runs the hooks of `.augment/settings.json` and `settings.local.json`; Trae starts the servers of
  // `.trae/mcp.json`, and Amp those of `.amp/settings.json`, whose `amp.permissions` also let its tools run unasked.
  '**/.factory/*.json',
  '**/.factory/hooks/**',
  '**/.augment/settings*.json',
  '**/.trae/mcp.json',
  '**/.amp/settings.json',
]);

export type ProtectedPathMatcher = (path: NormalizedPath) => boolean;

/** A matcher of one normalised path (`/` separators) without its root (`withoutRoot`): what a host that already holds real paths asks. */
export type PathTextMatcher = (path: string) => boolean;

/** Compile the defaults plus user additions (gitignore-style: a pattern without `/` matches at any depth). */
export function createProtectedPathMatcher(additions: readonly string[] = []): ProtectedPathMatcher {
  return viewMatcher(createProtectedTextMatcher(additions));
}

/** `createProtectedPathMatcher` for a path already normalised, without building its `NormalizedPath`. */
export function createProtectedTextMatcher(additions: readonly string[] = []): PathTextMatcher {
  return compileTextMatcher([...DEFAULT_PROTECTED_PATHS, ...additions.map((addition) => withChildren(gitignoreGlob(addition)))]);
}

/**
 * For each folder name the protected list names files below (`.claude` of
 * `**\/.claude/settings*.json`, `.config` and `gcloud` of
 * `**\/.config/gcloud/**`), case-folded, the paths below it to try: what
 * follows it in each pattern, each glob segment spelled as one name it
 * matches (`settingsx.json`). A link of such a name leads those spellings
 * into a folder whose own paths may be open, where anything may write what
 * a program then reads through the link; a host asks the matcher whether
 * the link's path joined with one of these is protected, so a `gcloud`
 * outside `.config` is not. Only literal segments name a folder; a pattern
 * with an extended glob gives no paths to try.
 */
export function protectedLinkProbes(additions: readonly string[] = []): ReadonlyMap<string, readonly string[]> {
  const probes = new Map<string, string[]>();
  for (const pattern of [...DEFAULT_PROTECTED_PATHS, ...additions.map(gitignoreGlob)]) {
    const segments = pattern.split('/');
    const spelled = segments.map(sampleName);
    for (let index = 0; index < segments.length - 1; index += 1) {
      const segment = segments[index] as string;
      const tail = spelled.slice(index + 1);
      if (segment === '' || GLOB_CHARACTER.test(segment) || tail.includes(undefined)) continue;
      const name = segment.toLowerCase();
      const list = probes.get(name) ?? [];
      list.push(tail.join('/'));
      probes.set(name, list);
    }
  }
  return probes;
}

const GLOB_CHARACTER = /[*?[\]{}()!+@]/;

/** One name a glob segment matches, or undefined for one this does not spell (an extended glob). */
function sampleName(segment: string): string | undefined {
  if (segment.includes('(')) return undefined;
  // Innermost braces first, until none is left: `{a,{1..3}}` is `{a,1}`, then `a`.
  let sample = segment;
  for (let inner = sample; ; sample = inner) {
    inner = sample.replace(/\{([^{}]*)\}/g, (_brace, options: string) => firstBraceValue(options));
    if (inner === sample) break;
  }
  sample = sample
    .replace(/\[([^\]]*)\]/g, (_class, members: string) => sampleCharacter(members))
    .replace(/\*+|\?/g, 'x');
  return sample === '' ? undefined : sample;
}

/** The first value a brace stands for: its first choice, or a range's first value as a shell spells it (`{1..010}`: `001`). */
function firstBraceValue(options: string): string {
  const first = options.split(',')[0] ?? '';
  const [from, to] = first.split('..');
  return to === undefined ? first : (firstRangeValue(from ?? '', to) ?? first);
}

/** One character a bracket class's members (what lies between `[` and `]`) match: `[!…]` and `[^…]` match the others. */
function sampleCharacter(members: string): string {
  if (!/^[!^]/.test(members)) return members.charAt(0) || 'x';
  let listed: RegExp;
  try {
    listed = new RegExp(`[${members.slice(1).replace(/[\\\]]/g, '\\$&')}]`, 'i');
  } catch {
    return 'x';
  }
  return ['x', 'q', 'z', '0', '~'].find((candidate) => !listed.test(candidate)) ?? 'x';
}

/** A matcher for gitignore-style globs alone, read the way protected paths are (case-insensitive, any depth). */
export function createPathMatcher(globs: readonly string[]): ProtectedPathMatcher {
  return viewMatcher(createPathTextMatcher(globs));
}

/** `createPathMatcher` for a path already normalised and without its root (`withoutRoot`). */
export function createPathTextMatcher(globs: readonly string[]): PathTextMatcher {
  return compileTextMatcher(globs.map((glob) => withChildren(gitignoreGlob(glob))));
}

function viewMatcher(matches: PathTextMatcher): ProtectedPathMatcher {
  // Check the path as given and as seen from its root, so `/home/u/.ssh/x` and `.ssh/x` both match.
  return (path) => {
    const given = withoutRoot(path.path);
    return matches(given) || (path.relative !== undefined && path.relative !== given && matches(path.relative));
  };
}

/** `/x`, `~/x` and `C:/x` as `x`: the globs are relative, and `**` reaches any depth. */
export function withoutRoot(path: string): string {
  const first = path.charCodeAt(0);
  if (first === 47) return path.slice(1);
  if (first === 126 && path.charCodeAt(1) === 47) return path.slice(2);
  if (path.charCodeAt(1) === 58 && path.charCodeAt(2) === 47 && ((first | 0x20) >= 97 && (first | 0x20) <= 122)) return path.slice(3);
  return path;
}

/** Where Windows reads a name other than as spelled: a segment ending in dots or spaces, or holding `:`. */
const WINDOWS_SPELLING = /[. ](?:\/|$)|:/;

function compileTextMatcher(patterns: readonly string[]): PathTextMatcher {
  // Compiled on first use: importing the engine (and its default floor) stays cheap.
  let compiled: CompiledPatterns | undefined;
  return (candidate) => {
    compiled ??= compilePatterns(patterns);
    // One scan answers an ordinary path: none of the literals, nothing Windows reads differently, and no open pattern.
    if (compiled.open.length === 0 && !compiled.literalsOrWindows.test(candidate)) return false;
    if (isMatch(candidate, compiled)) return true;
    if (!WINDOWS_SPELLING.test(candidate)) return false;
    // Windows drops trailing dots and spaces and reads `name::$DATA` as `name`: `.git./config` is `.git/config` there.
    const windows = candidate.split('/').map((segment) => withoutTrailingDotsAndSpaces(segment.replace(/:.*$/s, '')) || segment).join('/');
    return windows !== candidate && isMatch(windows, compiled);
  };
}

/** A candidate matches as itself or as a folder (`x/`, so `x/**` covers `x`). No literal holds a `/`, so one literal test serves both. */
function isMatch(candidate: string, compiled: CompiledPatterns): boolean {
  const asFolder = `${candidate}/`;
  const matches = (program: RegexProgram): boolean => runRegexProgram(program, candidate) || runRegexProgram(program, asFolder);
  if (compiled.open.some(matches)) return true;
  if (compiled.literals === undefined || !compiled.literals.test(candidate)) return false;
  for (const program of guardedPrograms(candidate, compiled)) if (matches(program)) return true;
  return false;
}

/**
 * The guarded patterns whose literal `candidate` holds, each once. The
 * finder tries the longest literal first, so what it finds at a position
 * is the longest there, and every other literal there is a prefix of it
 * (`byLiteral` lists their patterns too); it then looks again one further.
 */
function guardedPrograms(candidate: string, { finder, byLiteral, other }: CompiledPatterns): Set<RegexProgram> {
  const programs = new Set<RegexProgram>();
  if (finder !== undefined) {
    const folded = candidate.toLowerCase();
    finder.lastIndex = 0;
    for (let found = finder.exec(folded); found !== null; found = finder.exec(folded)) {
      for (const program of byLiteral.get(found[0]) ?? []) programs.add(program);
      finder.lastIndex = found.index + 1;
    }
  }
  for (const { literal, program } of other) if (literal.test(candidate)) programs.add(program);
  return programs;
}

/** A name without the dots and spaces it ends with, as Windows reads it (`withoutTrailingRun`: an argument of `.git` and 8,000 dots and spaces is read in one scan). */
export function withoutTrailingDotsAndSpaces(name: string): string {
  return withoutTrailingRun(name, (char) => char === '.' || char === ' ');
}

interface CompiledPatterns {
  /** The ASCII literals of the guarded patterns (lower case, longest first), as one alternation over a lower case path. */
  readonly finder: RegExp | undefined;
  /** For each such literal, the patterns whose literal it begins with (its own included). */
  readonly byLiteral: ReadonlyMap<string, readonly RegexProgram[]>;
  /** Guarded patterns whose literal is not ASCII alone, each with it as a case-insensitive expression. */
  readonly other: readonly { readonly literal: RegExp; readonly program: RegexProgram }[];
  /** Every guarded pattern's literal, as one alternation: a candidate holding none of them matches no guarded pattern. */
  readonly literals: RegExp | undefined;
  /** Patterns without such a literal (a user's `**\/*`), tried on every candidate. */
  readonly open: readonly RegexProgram[];
  /** `literals`, or a spelling Windows reads differently: a candidate with neither is not protected by a guarded pattern. */
  readonly literalsOrWindows: RegExp;
}

/**
 * Each glob as an automaton (`compilePathGlob`: a path costs its length
 * times the glob's, whatever it holds), behind a cheap literal test: an
 * ordinary path (`src/app.ts`) holds none of `.git`, `.env`, `.ssh`, … and
 * is answered by one scan, and a path holding `.git` is tried only on the
 * globs that need it. A literal of ASCII alone is looked for in the lower
 * case path: an ASCII letter matches only its own two cases, and lower
 * casing a path never parts a run of ASCII, so no match is missed.
 */
function compilePatterns(patterns: readonly string[]): CompiledPatterns {
  const ascii = new Map<string, RegexProgram[]>();
  const other: { literal: RegExp; program: RegexProgram }[] = [];
  const literals: string[] = [];
  const open: RegexProgram[] = [];
  const lookaheads = new Map<string, RegexProgram>();
  for (const pattern of patterns) {
    const program = compilePathGlob(pattern, true, lookaheads).program;
    const literal = requiredLiteral(pattern);
    if (literal === undefined) {
      open.push(program);
      continue;
    }
    literals.push(escapeLiteral(literal));
    // eslint-disable-next-line no-control-regex
    if (!/^[\x00-\x7f]*$/.test(literal)) other.push({ literal: new RegExp(escapeLiteral(literal), 'i'), program });
    else ascii.set(literal.toLowerCase(), [...(ascii.get(literal.toLowerCase()) ?? []), program]);
  }
  const byLiteral = new Map<string, RegexProgram[]>();
  for (const literal of ascii.keys()) byLiteral.set(literal, [...ascii].filter(([prefix]) => literal.startsWith(prefix)).flatMap(([, programs]) => programs));
  const longestFirst = [...ascii.keys()].sort((a, b) => b.length - a.length).map(escapeLiteral);
  return {
    finder: longestFirst.length === 0 ? undefined : new RegExp(longestFirst.join('|'), 'g'),
    byLiteral,
    other,
    literals: literals.length === 0 ? undefined : new RegExp(literals.join('|'), 'i'),
    open,
    literalsOrWindows: new RegExp([...literals, WINDOWS_SPELLING.source].join('|'), 'i'),
  };
}

function escapeLiteral(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The longest run of plain characters inside one path segment, outside any
 * brace or bracket group: every path the glob matches contains it. None for
 * a glob whose syntax could make that untrue (escapes, extglobs, negation).
 */
export function requiredLiteral(glob: string): string | undefined {
  if (glob.startsWith('!') || /[\\()]/.test(glob)) return undefined;
  let best = '';
  let run = '';
  let braces = 0;
  let bracket = false;
  // What the class holds so far: a `]` first in it (`[]ab]`, `[!]ab]`) is a member, as POSIX and picomatch read it.
  let members = '';
  for (const character of glob) {
    if (bracket) {
      if (character === ']' && !/^[!^]?$/.test(members)) bracket = false;
      members += character;
      continue;
    }
    if (character === '[') [bracket, members] = [true, ''];
    else if (character === '{') braces += 1;
    else if (character === '}') braces -= 1;
    // A stray `}`: how the glob reads it is not worth guessing.
    if (braces < 0) return undefined;
    if (braces === 0 && !bracket && !'*?/{}[]'.includes(character)) {
      run += character;
      if (run.length > best.length) best = run;
    } else run = '';
  }
  return best.length === 0 ? undefined : best;
}

/**
 * A protected path that names one file of the workspace as it is spelled,
 * for names the configuration gives (its journal, its imports, the files it
 * starts as servers) rather than patterns: each glob character is escaped,
 * so `--allow=*.md` protects the file of that name and not every Markdown
 * file, and `srv/a+(b).mjs` protects itself where the extglob would not.
 */
export function literalPathGlob(relativePath: string): string {
  return relativePath.replace(/[\\*?[\]{}()!+@#]/g, '\\$&');
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
