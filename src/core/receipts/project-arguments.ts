import { namesCredential, redactNamedValue } from '../policy/credential-spans.js';
import { redactSecrets } from '../policy/redact-secrets.js';
import { maskBeforeCode } from '../policy/secret-token.js';

export interface ProjectArgumentsOptions {
  /** Longest string shown, after redaction. */
  readonly maxString?: number;
  readonly maxDepth?: number;
  readonly maxEntries?: number;
  /**
   * Top-level keys whose values are secret-tainted: shown as `[redacted]`.
   * Credential-named keys (`password`, `token`, `Authorization`, `Cookie`,
   * `X-Api-Key`, …) are masked at every depth without being listed.
   */
  readonly secretKeys?: ReadonlySet<string> | undefined;
  /** Told of each value the projection cuts short: a string clipped, a list or an object with entries left out, a level not shown. */
  readonly onCut?: () => void;
}

/** What a member's name says for every value under it: the name as shown, and whether it names a credential. */
interface MemberName {
  readonly shown: string;
  readonly credential: boolean;
}

/**
 * Member names recur from call to call (a tool's arguments have the same
 * keys each time), so what each says is kept, for names short enough to be
 * a schema's. Redaction and the credential test are pure functions of the
 * name: a kept answer is the one a fresh scan would give.
 */
const MEMBER_NAMES = new Map<string, MemberName>();
const MAX_KEPT_NAME = 128;
const MAX_KEPT_NAMES = 4096;

function memberName(key: string): MemberName {
  const kept = MEMBER_NAMES.get(key);
  if (kept !== undefined) return kept;
  const name = { shown: redactSecrets(key), credential: namesCredential(key) };
  if (key.length <= MAX_KEPT_NAME) {
    if (MEMBER_NAMES.size >= MAX_KEPT_NAMES) MEMBER_NAMES.clear();
    MEMBER_NAMES.set(key, name);
  }
  return name;
}

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
  const maxString = options.maxString ?? 512;
  const maxDepth = options.maxDepth ?? 8;
  const maxEntries = options.maxEntries ?? 64;
  const ancestors = new Set<object>();
  const cut = options.onCut ?? ignoreCut;
  const clip = (clean: string): string => {
    if (clean.length <= maxString) return clean;
    cut();
    return `${clean.slice(0, maxString)}… [${clean.length - maxString} more characters]`;
  };

  /** `key` names the member `node` is the value of (`credential` when the name says so), `top` when that member is a top-level argument. */
  const visit = (node: unknown, depth: number, key: string | undefined, credential: boolean, top: boolean): unknown => {
    if (top && key !== undefined && options.secretKeys?.has(key) === true) return typeof node === 'string' ? clip(redactSecrets(maskBeforeCode(node).text)) : '[redacted]';
    if (credential && key !== undefined && (typeof node === 'string' || typeof node === 'number' || typeof node === 'bigint')) {
      const named = redactNamedValue(key, String(node));
      if (named !== undefined && named.masked > 0) return clip(redactSecrets(named.text));
    }
    if (typeof node === 'string') return clip(redactSecrets(node));
    if (typeof node === 'bigint') return node.toString();
    if (typeof node === 'function' || typeof node === 'symbol') return `[${typeof node}]`;
    if (typeof node !== 'object' || node === null) return node;
    if (ArrayBuffer.isView(node)) return `[binary ${node.byteLength} bytes]`;
    if (node instanceof ArrayBuffer) return `[binary ${node.byteLength} bytes]`;
    if (ancestors.has(node)) return '[cyclic]';
    if (depth >= maxDepth) {
      cut();
      return '[nested]';
    }
    ancestors.add(node);
    try {
      if (Array.isArray(node)) {
        const items = node.slice(0, maxEntries).map((item) => visit(item, depth + 1, undefined, false, false));
        if (node.length > maxEntries) {
          cut();
          items.push(`[${node.length - maxEntries} more items]`);
        }
        return items;
      }
      const result: Record<string, unknown> = {};
      const keys = Object.keys(node);
      const shown = Math.min(keys.length, maxEntries);
      for (let index = 0; index < shown; index += 1) {
        const entryKey = keys[index] as string;
        const member = memberName(entryKey);
        const name = distinctKey(result, member.shown);
        const projected = visit((node as Record<string, unknown>)[entryKey], depth + 1, entryKey, member.credential, depth === 0);
        // An own member, whatever its name: `result['__proto__'] = …` would set the prototype and drop a
        // model-chosen `__proto__` argument from what the approver, the receipt and the journal show.
        // Every other name is a plain assignment, which defines the same own, enumerable, writable member.
        if (name === '__proto__') Object.defineProperty(result, name, { value: projected, enumerable: true, writable: true, configurable: true });
        else result[name] = projected;
      }
      if (keys.length > maxEntries) {
        cut();
        result['…'] = `[${keys.length - maxEntries} more keys]`;
      }
      return result;
    } finally {
      // Removing on exit is what tells an ancestor cycle from a shared sibling.
      ancestors.delete(node);
    }
  };

  return visit(value, 0, undefined, false, false);
}

/** Receipts and events do not count what they cut. */
function ignoreCut(): void {}

/** Two keys that redact alike (two tokens used as keys) must both stay visible: the later one is numbered. */
function distinctKey(result: object, key: string): string {
  if (!Object.hasOwn(result, key)) return key;
  for (let index = 2; ; index += 1) if (!Object.hasOwn(result, `${key} (${index})`)) return `${key} (${index})`;
}
