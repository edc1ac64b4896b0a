import { ConfigurationError, type PolicyTarget } from '../core/internal.js';
import { evaluateJsonPointer, parseJsonPointer, type JsonPointer } from './json-pointer.js';

/**
 * Where an upstream tool's targets are in its arguments, as JSON Pointers
 * (RFC 6901): what the guardrail floor and the path, domain and command
 * rules judge, exactly as they judge a built-in's.
 */
export interface McpArgumentTargets {
  /** A string: the file or directory the tool acts on. */
  readonly path?: string;
  /** More paths: each pointer names a string or an array of strings (`["/source", "/destination"]`). */
  readonly paths?: string | readonly string[];
  /** A string: the URL the tool fetches. */
  readonly url?: string;
  /** A string or an array of strings: the command the tool runs. */
  readonly command?: string;
}

/** The target members an upstream call contributes to its `policyTarget`. */
export type ArgumentTargetValues = Pick<PolicyTarget, 'path' | 'paths' | 'url' | 'command'>;

export interface CompileArgumentTargetsOptions {
  /**
   * Every spelling of one path the policy must judge, in place of the path
   * as given: a server that reads a relative path against its own directory,
   * or that matches names up to Unicode normalisation, says so here. The
   * first spelling is the one shown.
   */
  readonly spellings?: (path: string) => readonly string[];
  /**
   * A JSON pointer to the member naming the folder the server reads the
   * relative entries of `paths` in, when that is not its working directory:
   * mcp-server-git stages each of `files` inside the repository `repo_path`
   * names. Each entry is then judged as that folder joined with it, as the
   * server will open it (`sub` and `../.env` is `sub/../.env`, which the host
   * walks as the kernel does); judged as spelled, `../.env` read in `sub`
   * was a path outside the workspace, and `.toolgate/http-token` read in
   * `sub` another file than the one the server opened.
   */
  readonly pathsWithin?: string;
}

const KINDS = ['path', 'paths', 'url', 'command'] as const;

/** Check a configured targets object, naming the key that is wrong. */
export function checkArgumentTargets(targets: unknown, field: string): McpArgumentTargets {
  if (typeof targets !== 'object' || targets === null || Array.isArray(targets)) throw new ConfigurationError(field, 'must be an object of JSON pointers (path, paths, url, command)');
  for (const [kind, value] of Object.entries(targets)) {
    if (!(KINDS as readonly string[]).includes(kind)) throw new ConfigurationError(`${field}.${kind}`, 'is not a target kind (path, paths, url or command)');
    const pointers: unknown[] = kind === 'paths' && Array.isArray(value) ? value : [value];
    if (pointers.length === 0) throw new ConfigurationError(`${field}.${kind}`, 'must name at least one JSON pointer');
    for (const pointer of pointers) {
      if (parseJsonPointer(pointer) === undefined) throw new ConfigurationError(`${field}.${kind}`, 'must be a JSON pointer such as "/path" (members after "/", "~1" for "/" and "~0" for "~")');
    }
  }
  return targets;
}

/**
 * Compile targets once, at discovery: the function reads the pointers from
 * a call's arguments. A member that is absent is no target of that kind; one
 * that is present with the wrong type throws, so the call is refused
 * (`target_unavailable`) rather than judged without it.
 */
export function compileArgumentTargets(targets: McpArgumentTargets, field: string, options: CompileArgumentTargetsOptions = {}): (args: unknown) => ArgumentTargetValues {
  checkArgumentTargets(targets, field);
  const pointer = (text: string): JsonPointer => parseJsonPointer(text) as JsonPointer;
  const path = targets.path === undefined ? undefined : pointer(targets.path);
  const paths = targets.paths === undefined ? [] : (typeof targets.paths === 'string' ? [targets.paths] : targets.paths).map(pointer);
  const url = targets.url === undefined ? undefined : pointer(targets.url);
  const command = targets.command === undefined ? undefined : pointer(targets.command);
  const spell = options.spellings ?? ((value: string) => [value]);
  const within = options.pathsWithin === undefined ? undefined : pointer(options.pathsWithin);
  // The configured member each kind reads, named when a call's arguments do not fit it.
  const at = { path: `${field}.path`, paths: `${field}.paths`, url: `${field}.url`, command: `${field}.command` };
  return (args) => {
    if (holdsPrototypeMember(args)) throw new ConfigurationError(field, 'cannot be read from arguments that hold a __proto__ member, or constructor.prototype, at any depth');
    const found: { -readonly [K in keyof ArgumentTargetValues]: ArgumentTargetValues[K] } = {};
    const all: string[] = [];
    if (path !== undefined) {
      const value = read(args, path, at.path);
      if (value !== undefined) all.push(...spell(text(value, at.path)));
    }
    const folderValue = within === undefined ? undefined : read(args, within, at.paths);
    const folder = folderValue === undefined ? undefined : text(folderValue, at.paths);
    for (const entry of paths) {
      const value = read(args, entry, at.paths);
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) all.push(...spell(inFolder(folder, text(item, at.paths))));
    }
    if (all.length > 0) {
      found.path = all[0] as string;
      if (all.length > 1) found.paths = Object.freeze(all.slice(1));
    }
    if (url !== undefined) {
      const value = read(args, url, at.url);
      if (value !== undefined) found.url = text(value, at.url);
    }
    if (command !== undefined) {
      const value = read(args, command, at.command);
      if (value !== undefined) found.command = Array.isArray(value) ? Object.freeze((value as unknown[]).map((element) => text(element, at.command))) : text(value, at.command);
    }
    return found;
  };
}

/** `item` as a server reads it in `folder`: joined without normalising, so a `..` after a link climbs from where the link led. */
function inFolder(folder: string | undefined, item: string): string {
  if (folder === undefined || folder.length === 0 || item.startsWith('/')) return item;
  return folder.endsWith('/') ? `${folder}${item}` : `${folder}/${item}`;
}

/**
 * The member a pointer names in a call's arguments, as the floor judges it;
 * `member` is the configured target, named in the error. The floor reads
 * the member named exactly, inside objects and arrays. Where an upstream
 * could read another value for it, the call is refused:
 *
 * - A member whose name differs from the token only in case (`PATH` or
 *   `Path` beside or in place of `path`): an upstream written in Go that
 *   decodes its arguments into a struct matches member names up to case
 *   (Unicode simple folding, so `ſ` is an `s` and `K`, the Kelvin sign, a
 *   `k`), and of several matches takes the last.
 * - A string where the pointer goes on into an object, or a target string
 *   that is JSON of a list or an object: Python's FastMCP, and servers like
 *   it, parse a string sent for an argument that is not text as the JSON it
 *   spells, and would read members the floor saw as text.
 */
function read(args: unknown, pointer: JsonPointer, member: string): unknown {
  const value = evaluateJsonPointer(args, pointer, (node, token) => {
    if (typeof node === 'string') throw new ConfigurationError(member, 'names a member inside a string in the arguments, which an upstream may parse');
    if (typeof node === 'object' && node !== null && !Array.isArray(node) && holdsCaseVariant(node, token)) {
      throw new ConfigurationError(member, 'cannot be read from arguments that also hold a member named like it up to case');
    }
  });
  if (!value.found) return undefined;
  if (value.value === undefined || value.value === null) throw new ConfigurationError(member, 'names a member that is null in the arguments');
  if (typeof value.value === 'string' && spellsJsonStructure(value.value)) throw new ConfigurationError(member, 'names a string that is JSON of a list or an object in the arguments, which an upstream may parse');
  return value.value;
}

/** `[`, `{` and the JSON whitespace that may come before them. */
const OPENS_JSON_STRUCTURE: ReadonlySet<number> = new Set([0x5b, 0x7b, 0x20, 0x09, 0x0a, 0x0d]);

/**
 * Whether a target string is the JSON text of an array or an object. The
 * floor judges it as the one path, URL or command it is; FastMCP parses such
 * a string, sent for an argument that may be a list (`str | list[str]`), into
 * the paths it spells. Parsed only when it opens and closes like one.
 */
function spellsJsonStructure(value: string): boolean {
  // Most targets open with neither bracket nor JSON whitespace: they are settled by one character.
  if (!OPENS_JSON_STRUCTURE.has(value.charCodeAt(0))) return false;
  const text = value.trim();
  const open = text.charAt(0);
  const close = text.charAt(text.length - 1);
  if (!((open === '[' && close === ']') || (open === '{' && close === '}'))) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `node` holds a member named like `token` up to case, but not as
 * it. Names are compared lower-cased, then upper-cased, which takes every
 * character of a simple folding orbit to one (`ß` and `ẞ` to `SS`, `ſ` to
 * `S`), and folds some names Go keeps apart (`ı` and `i`): such a call is
 * refused too. A name of another length is no such variant, as simple
 * folding maps one character to one.
 */
function holdsCaseVariant(node: object, token: string): boolean {
  let folded: string | undefined;
  for (const key of Object.keys(node)) {
    if (key.length !== token.length || key === token) continue;
    folded ??= fold(token);
    if (fold(key) === folded) return true;
  }
  return false;
}

function fold(name: string): string {
  return name.toLowerCase().toUpperCase();
}

function text(value: unknown, member: string): string {
  if (typeof value !== 'string') throw new ConfigurationError(member, 'names a member that is not a string in the arguments');
  return value;
}

/**
 * Whether the arguments hold, at any depth, an own `__proto__` member, or a
 * `constructor` member with a `prototype` member. The floor judges the
 * targets the arguments hold as their own. An upstream that copies an
 * object of them with `Object.assign` takes its `__proto__` member as the
 * copy's prototype, and reads a target the arguments left absent from it;
 * one that merges them recursively can write `constructor.prototype` into
 * every object's prototype, and later calls read it too. Neither is ever
 * judged, so such arguments are refused. Walked without recursion: they may
 * nest as deep as a message allows.
 */
function holdsPrototypeMember(args: unknown): boolean {
  const pending: unknown[] = [args];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (!Array.isArray(node)) {
      if (Object.hasOwn(node, '__proto__')) return true;
      const constructor: unknown = Object.hasOwn(node, 'constructor') ? (node as { constructor: unknown }).constructor : undefined;
      if (typeof constructor === 'object' && constructor !== null && Object.hasOwn(constructor, 'prototype')) return true;
    }
    for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) pending.push(value);
  }
  return false;
}
