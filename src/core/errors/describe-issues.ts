/** One validation problem, already made secret-free. */
export interface ValidationIssue {
  /** Dotted path of the field, e.g. `items.0.name`; empty for the root. */
  readonly path: string;
  readonly message: string;
}

const SAFE_NAME = /^[A-Za-z0-9_.@:-]{1,64}$/;

/** A model-supplied name shown in an error only when it is plainly a name. */
export function safeName(name: unknown): string {
  return typeof name === 'string' && SAFE_NAME.test(name) ? `"${name}"` : '(the requested name is not a valid tool name)';
}

const TYPE_WORDS = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null', 'undefined', 'bigint', 'symbol', 'function', 'nan', 'date', 'map', 'set']);
// Validators sometimes echo the received value ("received "hunter2""); keep the type word, drop the value.
const RECEIVED = /\b(received|got|but was)\s+("[^"]*"?|'[^']*'?|`[^`]*`?|[^\s,;)]+)/gi;
const MAX_SEGMENT = 64;

/** Scrub one validator message so it can never carry an argument value. */
export function scrubIssueMessage(message: string): string {
  const scrubbed = message.replace(RECEIVED, (whole, verb: string, what: string) =>
    TYPE_WORDS.has(what.toLowerCase()) ? whole : `${verb} a value of another shape`,
  );
  return scrubbed.length > 200 ? `${scrubbed.slice(0, 200)}…` : scrubbed;
}

/** Render a path from validator segments; record keys are model-supplied, so clip them. */
export function formatIssuePath(segments: readonly unknown[] | undefined): string {
  if (segments === undefined || segments.length === 0) return '';
  return segments
    .map((segment) => {
      const key = typeof segment === 'object' && segment !== null && 'key' in segment ? (segment as { key: unknown }).key : segment;
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
