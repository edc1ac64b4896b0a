import { countRedacted, redactSecretsCounted } from '../policy/redact-secrets.js';
import { runnerCode, unboundRunners } from '../policy/runner-code.js';
import { projectArguments } from '../receipts/project-arguments.js';
import { pathFlags, type ResolvedAction, type ResolvedCommand, type ResolvedPath, type ResolvedPathFlag } from './resolved-action.js';

/** One filesystem target as a person reads it. */
export interface DisplayedPath {
  /** Where the call really acts (the real path). */
  readonly path: string;
  /** How the call spelled it, when that differs from where it acts. */
  readonly requested?: string;
  readonly flags: readonly ResolvedPathFlag[];
}

/**
 * Everything a decision about a call covers, as a person reads it: the real
 * paths with their flags, the whole argv, method and full URL, the MCP server,
 * tool and arguments, the OS action's text. Secret-shaped tokens are masked
 * where they stand and nothing else is: separators, `..`, command words and
 * the layout stay, so a mask can never hide where a call acts. `masked` counts
 * what was masked, so a card can say so.
 */
export interface ActionDisplay {
  readonly access: 'read' | 'write';
  readonly files: readonly DisplayedPath[];
  /**
   * `paths`: the paths the arguments name that a person must see (protected, reached through a link,
   * outside the workspace, hard-linked), as the host resolved them; an ordinary file is left out.
   */
  readonly command?: { readonly argv: readonly string[]; readonly executable?: string; readonly cwd: string; readonly paths?: readonly DisplayedPath[]; readonly code?: RunnerCodeShown };
  readonly http?: { readonly method: string; readonly url: string; readonly host: string; readonly port: number };
  /** `arguments` is pretty-printed JSON; `cut` counts the values in it cut short (a long string, a list or object past its first entries, a level too deep), when any is. */
  readonly mcp?: { readonly server: string; readonly tool?: string; readonly arguments: string; readonly cut?: number };
  readonly os?: { readonly action: string; readonly text?: string };
  readonly search?: { readonly query: string; readonly host?: string };
  /** How many values the display masks. */
  readonly masked: number;
}

/**
 * What a card says of a runner's code (`runnerCode`): the runners, and the
 * files they read their code from that exist, where they really are. Those
 * are bound to the approval; what they run in turn is not, and the card says so.
 */
export interface RunnerCodeShown {
  readonly programs: readonly string[];
  readonly files: readonly string[];
  /** It runs workspace members' code too, not all of it bound (`RunnerCode.members`). */
  readonly members?: true;
  /** The runners it starts whose code is not bound: inside a shell string, or by a program toolgate does not read (`unboundRunners`). */
  readonly unbound?: readonly string[];
  /** It reads more files than are listed (`RunnerCode.cut`): none of them is bound. */
  readonly cut?: true;
  /** It runs commands toolgate did not read (`UnboundRunners.unread`): a runner among them runs code that is not bound. */
  readonly unread?: true;
}

/** The largest string an MCP argument shows in full on a card; a longer one is clipped with a count. */
const MAX_SHOWN_ARGUMENT = 16 * 1024;

/** The display of a resolved action, masked and frozen. */
export function displayAction(action: ResolvedAction): ActionDisplay {
  let masked = 0;
  const mask = (text: string): string => {
    const clean = redactSecretsCounted(text);
    masked += clean.masked;
    return clean.text;
  };
  // Masking stops at the end of each token (a value ends at the `/` that begins a path), so a path or a URL
  // is masked whole: cutting it at separators first would show the parts of a secret that holds a `/`.
  const files = action.files.map((file) => displayPath(file, mask));
  const display: { -readonly [K in keyof ActionDisplay]: ActionDisplay[K] } = { access: action.access, files: Object.freeze(files), masked: 0 };
  if (action.command !== undefined) {
    const { argv, executable, cwd } = action.command;
    const paths = (action.command.arguments ?? []).filter(isNotable).map((file) => displayPath(file, mask));
    const code = runnerCodeShown(action.command, mask);
    display.command = Object.freeze({
      argv: Object.freeze(argv.map(mask)),
      ...(executable === undefined ? {} : { executable: mask(executable) }),
      cwd: mask(cwd.real),
      ...(paths.length === 0 ? {} : { paths: Object.freeze(paths) }),
      ...(code === undefined ? {} : { code }),
    });
  }
  if (action.http !== undefined) {
    const { method, url, host, port } = action.http;
    display.http = Object.freeze({ method, url: mask(url), host, port });
  }
  if (action.mcp !== undefined) {
    // What is cut short is counted, so a card can say that the call carries more than it shows.
    let cut = 0;
    const shown = projectArguments(action.mcp.arguments, { maxString: MAX_SHOWN_ARGUMENT, maxEntries: 256, maxDepth: 16, onCut: () => (cut += 1) });
    const text = JSON.stringify(shown, null, 2) ?? 'null';
    masked += Math.max(0, countRedacted(text) - countRedacted(safeJson(action.mcp.arguments)));
    const tool = action.mcp.tool;
    display.mcp = Object.freeze({ server: mask(action.mcp.server), ...(tool === undefined ? {} : { tool: mask(tool) }), arguments: text, ...(cut === 0 ? {} : { cut }) });
  }
  if (action.os !== undefined) display.os = Object.freeze({ action: action.os.action, ...(action.os.text === undefined ? {} : { text: mask(action.os.text) }) });
  if (action.search !== undefined) display.search = Object.freeze({ query: mask(action.search.query), ...(action.search.host === undefined ? {} : { host: action.search.host }) });
  display.masked = masked;
  return Object.freeze(display);
}

/**
 * The runners of a command and the files of their code that exist, where
 * they really are; as spelled when no host resolved them. The host was
 * asked for them after the argv's own candidates (`resolvableArguments`),
 * so they are the last of its answers.
 */
function runnerCodeShown(command: ResolvedCommand, mask: (text: string) => string): RunnerCodeShown | undefined {
  const { argv, arguments: resolved } = command;
  const code = runnerCode(argv, command.cwd.requested, command.runnerClimbs, command.runnerMembers);
  const { programs: unbound, unread } = unboundRunners(argv);
  if (code === undefined && unbound.length === 0 && !unread) return undefined;
  const named = code?.files ?? [];
  const files = resolved === undefined || named.length === 0 ? named : resolved.slice(-named.length).flatMap((file) => (file.created ? [] : [file.real]));
  // Two spellings may lead to one file (`sub/../package.json` from the workspace root): it is shown once.
  const shown = Object.freeze([...new Set(files.map(mask))]);
  return Object.freeze({
    programs: Object.freeze([...(code?.programs ?? [])]),
    files: shown,
    ...(code?.members === true ? { members: true as const } : {}),
    ...(code?.cut === true ? { cut: true as const } : {}),
    ...(unbound.length === 0 ? {} : { unbound: Object.freeze(unbound.map(mask)) }),
    ...(unread ? { unread: true as const } : {}),
  });
}

/** An argument path a person must see before approving: anything but an ordinary file, existing or new. */
function isNotable(file: ResolvedPath): boolean {
  return file.protected || file.linkTraversal || file.outside || file.hardLinked;
}

function displayPath(file: ResolvedPath, mask: (text: string) => string): DisplayedPath {
  const path = mask(file.real);
  const requested = file.requested === file.real ? undefined : mask(file.requested);
  return Object.freeze({ path, ...(requested === undefined || requested === path ? {} : { requested }), flags: pathFlags(file) });
}

/**
 * An argv as one line a person can read back into the same argv: elements
 * with spaces, quotes or shell characters are single-quoted, so
 * `["sh","-c","echo a; touch b"]` reads `sh -c 'echo a; touch b'`, never as
 * four words. An element holding a control character or a line break is
 * written `$'…'` with the character escaped, so the line stays one line and
 * nothing in it can move the cursor. Display only: nothing ever runs this
 * through a shell.
 */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map(quoteElement).join(' ');
}

/** Controls but tab and line feed, which a block of lines keeps. */
const CONTROLS_BUT_LINES = '\\u0000-\\u0008\\u000b-\\u001f';
const UNPRINTABLE_REST =
  '\\u007f-\\u009f\\u00ad\\u0334-\\u0338\\u034f\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u2000-\\u200f\\u2028-\\u202e\\u205f-\\u206f\\u20d2\\u20d3\\u20d8-\\u20da\\u20e5\\u20e6\\u20ea\\u2800\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\ufffc';
/**
 * Controls, line breaks, and the characters that draw as nothing or reorder
 * a line, so that it reads as something it is not: soft hyphen, joiners and
 * zero-width spaces, direction marks, embeddings, overrides and isolates,
 * invisible operators, fillers that draw as blank space (Hangul, Khmer,
 * Mongolian), variation selectors, the byte-order mark, interlinear
 * annotations, prepended concatenation marks and every other format
 * character. The same set the upstream-text scan removes, with line breaks;
 * and, shown only, the typographic spaces (U+2000–U+200A, U+205F) and the
 * blank Braille pattern U+2800, which a shell reads as part of a word where
 * a person sees a space, the object replacement character, and the marks
 * that strike through or overlay the character before them (`/` with a
 * stroke, a vertical line). The no-break spaces of everyday text (U+00A0,
 * U+202F, U+3000) stay as they are.
 */
const UNPRINTABLE_BMP = `\\t\\n${CONTROLS_BUT_LINES}${UNPRINTABLE_REST}`;
/**
 * Beyond the BMP, as surrogate pairs: U+E0000–U+E0FFF (Unicode tags, which a
 * model reads and a screen draws as nothing, and the variation selectors
 * supplement), and the format controls of Kaithi, Egyptian hieroglyphs,
 * shorthand and musical symbols.
 */
const UNPRINTABLE_ASTRAL = '[\\udb40-\\udb43][\\udc00-\\udfff]|\\ud804[\\udcbd\\udccd]|\\ud80d[\\udc30-\\udc3f]|\\ud82f[\\udca0-\\udca3]|\\ud834[\\udd73-\\udd7a]';
/* eslint-disable no-misleading-character-class -- these characters are what must never reach a screen raw */
export const UNPRINTABLE = new RegExp(`[${UNPRINTABLE_BMP}]|${UNPRINTABLE_ASTRAL}`);
/** The same but a tab or a line feed: what a block of lines may not hold. */
export const UNPRINTABLE_BUT_LINES = new RegExp(`[${CONTROLS_BUT_LINES}${UNPRINTABLE_REST}]|${UNPRINTABLE_ASTRAL}`);
const EVERY_UNPRINTABLE = new RegExp(UNPRINTABLE.source, 'g');
/** The same, with the two characters `$'…'` escapes besides. */
const ESCAPED = new RegExp(`[${UNPRINTABLE_BMP}\\\\']|${UNPRINTABLE_ASTRAL}`, 'g');
/* eslint-enable no-misleading-character-class */
const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\', "'": "\\'" };

function quoteElement(element: string): string {
  if (element.length > 0 && /^[A-Za-z0-9_@%+=:,./-]+$/.test(element)) return element;
  if (!UNPRINTABLE.test(element)) return `'${element.replaceAll("'", "'\\''")}'`;
  return `$'${element.replace(ESCAPED, (character) => ESCAPES[character] ?? shellEscape(character))}'`;
}

/** `$'…'` spells a character beyond the BMP as `\UXXXXXXXX`. */
function shellEscape(character: string): string {
  const point = codePoint(character);
  return point.length > 4 ? `\\U${point.padStart(8, '0')}` : `\\u${point}`;
}

/**
 * One line as it really is: controls, line breaks and the invisible and
 * direction-changing characters (which would make a path or a command read
 * as something else) are written `⟨U+XXXX⟩`; tabs are kept when `keepTabs`.
 */
export function showUnprintable(text: string, keepTabs = false): string {
  return text.replace(EVERY_UNPRINTABLE, (character) => (keepTabs && character === '\t' ? character : `⟨U+${codePoint(character).toUpperCase()}⟩`));
}

function codePoint(character: string): string {
  return (character.codePointAt(0) ?? 0).toString(16).padStart(4, '0');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
