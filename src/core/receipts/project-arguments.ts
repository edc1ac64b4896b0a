import { namesCredential, redactNamedValue } from '../policy/credential-spans.js';
import { countRedacted, redactSecrets } from '../policy/redact-secrets.js';
import { maskBeforeCode } from '../policy/secret-token.js';
import { memoizeByName } from '../names/memoize-by-name.js';
import { argvSecrets, namesProgram, programMember } from './argv-secrets.js';
import { isPairValue, pairCredentialName, tupleCredentialName } from './credential-pairs.js';

/** How much a projection shows: the longest string (after redaction), the deepest level, the most entries of a list or an object. */
export interface ProjectionLimits {
  readonly maxString: number;
  readonly maxDepth: number;
  readonly maxEntries: number;
}

/** The limits of the call's projection, which approvals, receipts and the journal show. */
export const DEFAULT_PROJECTION_LIMITS: ProjectionLimits = Object.freeze({ maxString: 512, maxDepth: 8, maxEntries: 64 });

export interface ProjectArgumentsOptions extends Partial<ProjectionLimits> {
  /**
   * Top-level keys whose values are secret-tainted: shown as `[redacted]`.
   * Credential-named keys (`password`, `token`, `Authorization`, `Cookie`,
   * `X-Api-Key`, …) are masked at every depth without being listed.
   */
  readonly secretKeys?: ReadonlySet<string> | undefined;
  /** Told of each value the projection cuts short: a string clipped, a list or an object with entries left out, a level not shown. */
  readonly onCut?: () => void;
  /** Freeze every object and list of the projection as it is built, so that none who is shown it can change it. */
  readonly freeze?: boolean;
}

/** What a member's name says for every value under it: the name as shown, and whether it names a credential. */
interface MemberName {
  readonly shown: string;
  readonly credential: boolean;
}

/**
 * What a member's name says is a pure function of the name, and names recur
 * from call to call (a tool's arguments have the same keys each time): kept,
 * a kept answer is the one a fresh scan would give.
 */
const memberName = memoizeByName((key): MemberName => ({ shown: redactSecrets(key), credential: namesCredential(key) }));

/**
 * The display projection of arguments for events, receipts and previews.
 * Secrets are redacted on the complete string BEFORE clipping, so a clipped
 * secret cannot slip through; a member whose name says credential (a
 * header such as `Authorization` or `Cookie`, a key such as `password` or
 * `api_key`) has its value masked whatever its shape; an ancestor
 * back-reference shows `[cyclic]` while a shared sibling is shown at every
 * place it occurs; binary is replaced by its size.
 */
export function projectArguments(value: unknown, options: ProjectArgumentsOptions = {}): unknown {
  const maxString = options.maxString ?? DEFAULT_PROJECTION_LIMITS.maxString;
  const maxDepth = options.maxDepth ?? DEFAULT_PROJECTION_LIMITS.maxDepth;
  const maxEntries = options.maxEntries ?? DEFAULT_PROJECTION_LIMITS.maxEntries;
  // The objects above the one visited, as a list: no longer than `maxDepth`, it is searched faster than a set is kept up.
  const ancestors: object[] = [];
  const done = options.freeze === true ? Object.freeze : (value: object): object => value;
  const cut = options.onCut ?? ignoreCut;
  const clip = (clean: string): string => {
    if (clean.length <= maxString) return clean;
    cut();
    return clipped(clean, maxString, clean.length);
  };

  /**
   * `key` names the member `node` is the value of (`credential` when the name says so), `top` when that member is a
   * top-level argument, `program` the program a member beside it names (an argv's).
   */
  const visit = (node: unknown, depth: number, key: string | undefined, credential: boolean, top: boolean, program?: string): unknown => {
    if (top && key !== undefined && options.secretKeys?.has(key) === true) return typeof node === 'string' ? clip(redactSecrets(maskBeforeCode(node).text)) : '[redacted]';
    if (credential && key !== undefined && (typeof node === 'string' || typeof node === 'number' || typeof node === 'bigint')) {
      const named = redactNamedValue(key, String(node));
      if (named !== undefined && named.masked > 0) return clip(redactSecrets(named.text));
    }
    if (typeof node === 'string') return clip(redactSecrets(node));
    // Cut like a string: a bigint can be as long as any text.
    if (typeof node === 'bigint') return clip(node.toString());
    if (typeof node === 'function' || typeof node === 'symbol') return `[${typeof node}]`;
    if (typeof node !== 'object' || node === null) return node;
    if (ArrayBuffer.isView(node)) return `[binary ${node.byteLength} bytes]`;
    if (node instanceof ArrayBuffer) return `[binary ${node.byteLength} bytes]`;
    if (ancestors.includes(node)) return '[cyclic]';
    if (depth >= maxDepth) {
      cut();
      return '[nested]';
    }
    ancestors.push(node);
    try {
      // Under a credential's name a list's items are masked by that name (`Authorization: ['Basic …']`), and so is an
      // object's value member (a cookie's in `cookies: [{ name, value, domain }]`).
      const inherited = credential ? key : undefined;
      if (Array.isArray(node)) {
        const read = node.slice(0, maxEntries);
        // The second item of a list of two whose first names a credential is its value, in a list of them (fetch's
        // `[['X-Api-Key', key], …]`): a list of two on its own is as often an argv's operands (`scp deploy.key host:`).
        const listItem = key === undefined && depth > 0;
        const tuple = inherited === undefined && listItem && node.length === 2 ? tupleCredentialName(read) : undefined;
        // An argv's item after a flag whose name says secret (`['login', '--password', X, 'registry']`).
        const flagged = inherited === undefined && read.length >= 2 ? argvSecrets(read, program) : undefined;
        const items: unknown[] = new Array(read.length);
        for (let index = 0; index < read.length; index += 1) {
          const named = inherited ?? (index === 1 ? tuple : undefined);
          const secret = flagged?.[index];
          items[index] = secret === undefined ? visit(read[index], depth + 1, named, named !== undefined, false) : clip(redactSecrets(secret.text));
        }
        if (node.length > maxEntries) {
          cut();
          items.push(moreItems(node.length - maxEntries));
        }
        return done(items);
      }
      const result: Record<string, unknown> = {};
      const all = Object.keys(node);
      const total = all.length;
      const keys = total > maxEntries ? all.slice(0, maxEntries) : all;
      // A pair's value (`{ name: 'Authorization', value }`) is masked by the credential the pair names, and an argv by
      // the program a member beside it names. Only an object with a value or a program member is read for one, its
      // members then read up front, each once as everywhere.
      const values = keys.some(isPairValue) || keys.some(namesProgram) ? keys.map((entryKey) => (node as Record<string, unknown>)[entryKey]) : undefined;
      const pairName = values === undefined ? undefined : pairCredentialName(node, all, values);
      const namedProgram = values === undefined ? undefined : programMember(keys, values);
      for (let index = 0; index < keys.length; index += 1) {
        const entryKey = keys[index] as string;
        const member = memberName(entryKey);
        const name = distinctKey(result, member.shown);
        const entry = values === undefined ? (node as Record<string, unknown>)[entryKey] : values[index];
        // Under a credential's name an object's value members are its (a cookie's `value`); its other members keep their
        // own names, so a `host`, a `url` or a `path` a call acts on stays on the card.
        const owner = pairName ?? inherited;
        const ownNamed = member.credential || (depth === 0 && options.secretKeys?.has(entryKey) === true);
        const named = owner !== undefined && !ownNamed && isPairValue(entryKey) ? owner : undefined;
        setMember(result, name, named !== undefined ? visit(entry, depth + 1, named, true, false) : visit(entry, depth + 1, entryKey, member.credential, depth === 0, namedProgram));
      }
      if (total > maxEntries) {
        cut();
        result[MORE_KEYS_MEMBER] = moreKeys(total - maxEntries);
      }
      return done(result);
    } finally {
      // Removing on exit is what tells an ancestor cycle from a shared sibling.
      ancestors.pop();
    }
  };

  return visit(value, 0, undefined, false, false);
}

/** Receipts and events do not count what they cut. */
function ignoreCut(): void {}

/** The member an object cut short ends with, saying how many keys were left out. */
const MORE_KEYS_MEMBER = '…';
const moreItems = (count: number): string => `[${count} more items]`;
const moreKeys = (count: number): string => `[${count} more keys]`;
const MORE_ITEMS = /^\[(\d+) more items\]$/;
const MORE_CHARACTERS = /… \[(\d+) more characters\]$/;
/** What a projection writes in a value's place and never cuts: its labels. */
const PROJECTION_LABEL = /^\[(?:redacted|nested|cyclic|function|symbol|binary \d+ bytes)\]$/;

/** The first `keep` characters of a redacted string `length` characters long, and how many were left out. */
function clipped(clean: string, keep: number, length: number): string {
  return `${clean.slice(0, keep)}… [${length - keep} more characters]`;
}

/**
 * An own member, whatever its name: `result['__proto__'] = …` would set the prototype and drop a
 * model-chosen `__proto__` argument from what the approver, the receipt and the journal show.
 * Every other name is a plain assignment, which defines the same own, enumerable, writable member.
 */
function setMember(result: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(result, name, { value, enumerable: true, writable: true, configurable: true });
  else result[name] = value;
}

/** Where a projection cannot say what tighter limits would show. */
class Undecidable extends Error {}

/**
 * A projection made with `from`'s limits, cut to tighter ones (`to`): what
 * `projectArguments` with `to` makes of the same value, without walking or
 * redacting the value again. Redaction does not depend on the limits, and
 * every cut says how much it left out: a string longer than
 * `from.maxString` is one cut (its marker gives its length), a list one
 * entry past `from.maxEntries` is one cut (its last entry gives its
 * length). Undefined where the projection cannot say, and the caller
 * projects the value itself: a limit of `to` above `from`'s, a member
 * named `…` (a cut object and the value's own member read alike), and a
 * label past `to.maxString` (a projection keeps its labels whole, a string
 * that reads alike it cuts).
 */
export function clipProjection(projection: unknown, from: ProjectionLimits, to: ProjectionLimits): { readonly value: unknown } | undefined {
  // A wider limit would ask for what the projection already left out.
  if (to.maxString > from.maxString || to.maxDepth > from.maxDepth || to.maxEntries > from.maxEntries) return undefined;
  const lengthOf = (text: string): number => {
    if (text.length <= from.maxString) return text.length;
    const marker = MORE_CHARACTERS.exec(text);
    if (marker === null) throw new Undecidable();
    return from.maxString + Number(marker[1]);
  };
  const visit = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') {
      const length = lengthOf(node);
      if (length <= to.maxString) return node;
      // A label stays whole in a projection, where a string that reads alike is cut.
      if (PROJECTION_LABEL.test(node)) throw new Undecidable();
      return clipped(node, to.maxString, length);
    }
    if (typeof node !== 'object' || node === null) return node;
    if (depth >= to.maxDepth) return '[nested]';
    if (Array.isArray(node)) {
      const cutAt = node.length > from.maxEntries ? MORE_ITEMS.exec(String(node[from.maxEntries])) : undefined;
      if (cutAt === null) throw new Undecidable();
      const length = cutAt === undefined ? node.length : from.maxEntries + Number(cutAt[1]);
      const items = (node as unknown[]).slice(0, Math.min(length, to.maxEntries)).map((item) => visit(item, depth + 1));
      if (length > to.maxEntries) items.push(moreItems(length - to.maxEntries));
      return items;
    }
    if (Object.hasOwn(node, MORE_KEYS_MEMBER)) throw new Undecidable();
    const keys = Object.keys(node);
    const result: Record<string, unknown> = {};
    const shown = Math.min(keys.length, to.maxEntries);
    for (let index = 0; index < shown; index += 1) {
      const key = keys[index] as string;
      setMember(result, key, visit((node as Record<string, unknown>)[key], depth + 1));
    }
    if (keys.length > to.maxEntries) result[MORE_KEYS_MEMBER] = moreKeys(keys.length - to.maxEntries);
    return result;
  };
  try {
    return { value: visit(projection, 0) };
  } catch (error) {
    if (error instanceof Undecidable) return undefined;
    throw error;
  }
}

/** How many `[redacted]` marks a projection shows, in its strings and its member names: as many as its JSON text holds. */
export function countRedactedMarks(projection: unknown): number {
  if (typeof projection === 'string') return countRedacted(projection);
  if (typeof projection !== 'object' || projection === null) return 0;
  let count = 0;
  if (Array.isArray(projection)) for (const item of projection as unknown[]) count += countRedactedMarks(item);
  else {
    for (const key of Object.keys(projection)) {
      const member = (projection as Record<string, unknown>)[key];
      // JSON leaves out a member whose value is undefined, its name too.
      if (member !== undefined) count += countRedacted(key) + countRedactedMarks(member);
    }
  }
  return count;
}

/** Two keys that redact alike (two tokens used as keys) must both stay visible: the later one is numbered. */
function distinctKey(result: object, key: string): string {
  if (!Object.hasOwn(result, key)) return key;
  for (let index = 2; ; index += 1) if (!Object.hasOwn(result, `${key} (${index})`)) return `${key} (${index})`;
}
