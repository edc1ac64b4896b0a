import { redactSecrets } from '../policy/redact-secrets.js';
/** One validation problem, already made secret-free. */
export interface ValidationIssue {
  /** Dotted path of the field, e.g. `items.0.name`; empty for the root. */
  readonly path: string;
  readonly message: string;
}

const SAFE_NAME = /^[A-Za-z0-9_.@:-]{1,64}$/;

const TOOL_NAME_SHAPE = /^[A-Za-z][A-Za-z0-9_]{0,63}(?:@[0-9A-Za-z.+-]{1,32})?$/;

/**
 * Whether a model-supplied tool name may be shown back: only when it is
 * plainly a tool name and nothing secret-shaped (a model can be tricked into
 * calling a "tool" named after a credential it saw).
 */
export function isShowableToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAME_SHAPE.test(name) && redactSecrets(name) === name;
}

/** A model-supplied tool name as an error shows it. */
export function safeName(name: unknown): string {
  return isShowableToolName(name) ? `"${name}"` : '(the requested name is not a valid tool name)';
}

const TYPE_WORDS = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null', 'undefined', 'bigint', 'symbol', 'function', 'nan', 'date', 'map', 'set']);
// Validators echo the received value: zod ("received string"), valibot
// ("but received "hunter2""), arktype ("(was "hunter2")"). Keep a bare type
// word; otherwise drop everything after the verb — a quoted value may itself
// contain quotes, so no closing delimiter can be trusted.
const RECEIVED = /\b(received|got|but was)\s+(?:an?\s+)?([\s\S]*)$/i;
const WAS = /\(was\s+(?:an?\s+)?([^)]*)\)[\s\S]*$/i;
// Unknown keys are model-supplied: zod ("Unrecognized keys: "a", "b""), arktype ("value at ["k"] must be removed").
const UNRECOGNIZED = /\b(unrecognized keys?)\s*:[\s\S]*$/i;
const VALUE_AT = /\bvalue at \[[\s\S]*?\](?= must| is|$)/gi;
const MAX_SEGMENT = 64;

/** Scrub one validator message so it can never carry an argument value. */
export function scrubIssueMessage(message: string): string {
  const scrubbed = String(message)
    .replace(UNRECOGNIZED, (_whole, label: string) => `${label} (names withheld)`)
    .replace(VALUE_AT, 'an unexpected key')
    .replace(WAS, (whole, what: string) => (TYPE_WORDS.has(what.trim().toLowerCase()) ? whole : '(was a value of another shape)'))
    .replace(RECEIVED, (whole, verb: string, what: string) => (TYPE_WORDS.has(what.trim().replace(/[.,;]$/, '').toLowerCase()) ? whole : `${verb} a value of another shape`));
  return scrubbed.length > 200 ? `${scrubbed.slice(0, 200)}…` : scrubbed;
}

/**
 * Defence in depth for a validator this module does not know: replace any
 * string value (or key) of the checked value that still appears in an issue
 * message. Runs only on the failure path.
 */
export function withholdValues(issues: readonly ValidationIssue[], value: unknown, declared: ReadonlySet<string> = NO_NAMES): ValidationIssue[] {
  const needles = new Set<string>();
  collectStrings(value, needles, 0);
  // The schema's own property names are its words, not the caller's: a path keeps naming the field.
  for (const name of declared) needles.delete(name);
  if (needles.size === 0) return [...issues];
  const ordered = [...needles].sort((left, right) => right.length - left.length);
  const withhold = (text: string): string => {
    let result = text;
    for (const needle of ordered) if (result.includes(needle)) result = result.split(needle).join('[value]');
    return result;
  };
  // A record key is model-supplied and may reach the path too.
  return issues.map((issue) => ({ path: issue.path.split('.').map((segment) => (needles.has(segment) ? '?' : segment)).join('.'), message: withhold(issue.message) }));
}

const NO_NAMES: ReadonlySet<string> = new Set();

// Short strings are indistinguishable from the schema's own words ("a", "id"); they are not worth a secret.
const MIN_NEEDLE = 4;

function collectStrings(value: unknown, into: Set<string>, depth: number): void {
  if (depth > 64 || into.size > 4096) return;
  if (typeof value === 'string') {
    if (value.length >= MIN_NEEDLE) into.add(value);
    return;
  }
  if (typeof value === 'number' && Math.abs(value) >= 1000) {
    into.add(String(value));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, into, depth + 1);
    return;
  }
  for (const key of Object.keys(value)) {
    if (key.length >= MIN_NEEDLE) into.add(key);
    collectStrings((value as Record<string, unknown>)[key], into, depth + 1);
  }
}

/** Render a path from validator segments; record keys are model-supplied, so clip them. */
export function formatIssuePath(segments: readonly unknown[] | undefined): string {
  if (segments === undefined || segments.length === 0) return '';
  return segments
    .map((segment) => {
      const key = typeof segment === 'object' && segment !== null && 'key' in segment ? (segment).key : segment;
      const text = typeof key === 'number' ? String(key) : typeof key === 'string' ? key : '?';
      return SAFE_NAME.test(text) && text.length <= MAX_SEGMENT ? text : '?';
    })
    .join('.');
}

export function describeIssues(issues: readonly ValidationIssue[]): string {
  if (issues.length === 0) return 'the value does not match the schema';
  const parts = issues.slice(0, 5).map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`));
  return parts.join('; ') + (issues.length > 5 ? `; and ${issues.length - 5} more` : '');
}
