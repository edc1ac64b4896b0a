import { credentialSpans } from './credential-spans.js';
import { flagValueSpans } from './flag-value-spans.js';
import { privateKeySpans } from './private-key-spans.js';
import { maskSpans, pathSafeEnd, REDACTED, type RedactedText, type SecretSpan } from './secret-token.js';
import { userinfoSpans } from './userinfo-spans.js';

export { REDACTED, type RedactedText } from './secret-token.js';

/** How many `[redacted]` marks a text holds. */
export function countRedacted(text: string): number {
  let count = 0;
  for (let at = text.indexOf(REDACTED); at !== -1; at = text.indexOf(REDACTED, at + REDACTED.length)) count += 1;
  return count;
}

/**
 * Scrub secrets from text a person reads (approval previews, event
 * `toolInput`, receipt summaries, the console, error messages), fail
 * closed, masking only the secret token itself: each is replaced by
 * `[redacted]` while labels (`API_KEY=`, `Bearer `, `Cookie: sid=`), path
 * separators, `..`, command words and the layout of the text stay, so a
 * reader still sees what the text does. Ordinary prose, git SHAs, UUIDs
 * and hashes are left alone: every pattern needs a vendor prefix, a PEM
 * armour line, URL userinfo, a header, or a credential name where a
 * credential stands. Placeholders (`<your-api-key-here>`, `********`,
 * `sk-ant-...`, `[redacted]`) stay as written.
 */
interface SecretPattern {
  readonly id: string;
  readonly pattern: RegExp;
  /** Keep capture group 1 (a label) before the marker. */
  readonly keepLabel?: boolean;
  /** The token may be followed by path structure (`/../x`): only the part before it is masked. */
  readonly pathSafe?: boolean;
  /** Literals, one of which every match contains: a text with none skips the pattern. */
  readonly hints: readonly string[];
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { id: 'aws-access-key-id', hints: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'APKA'], pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b/g },
  { id: 'github-token', hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { id: 'anthropic-key', hints: ['sk-ant-'], pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { id: 'openai-key', hints: ['sk-'], pattern: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g },
  { id: 'slack-token', hints: ['xox', 'xapp-'], pattern: /\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g },
  { id: 'slack-webhook', hints: ['hooks.slack.com'], pattern: /(https:\/\/hooks\.slack\.com\/services\/)[A-Za-z0-9/_-]{20,}/g, keepLabel: true },
  { id: 'stripe-key', hints: ['_live_', '_test_', 'whsec_'], pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}/g },
  { id: 'google-api-key', hints: ['AIza'], pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  // Not a host's labels: `https://eyJ….eyJ….attacker.example/` would hide where a command sends its request.
  { id: 'jwt', hints: ['eyJ'], pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?!\.?[A-Za-z0-9_-])/g },
  { id: 'bearer-token', hints: ['Bearer'], pattern: /\b(Bearer[ \t]+)(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{16,}/g, keepLabel: true, pathSafe: true },
];

const escapeHint = (hint: string): string => hint.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const PRIVATE_KEY_HINT = 'PRIVATE KEY';
const USERINFO_HINT = '://';
/**
 * Every pattern's hints as one scan: most strings (names, ids, prose) hold
 * none, and a pattern whose hint does not occur is not run; one that does
 * runs from just before the first place its hint occurs. The patterns
 * match case-sensitively, and so does the scan (with the `i` flag it took
 * ten times as long). The scan reports one hint per place, the longest, so
 * a hint that holds another (`sk-ant-` holds `sk-`) wakes the other's
 * pattern too; it resumes one character on, so hints that overlap are all
 * seen.
 */
const HINT_LIST = [...new Set([...SECRET_PATTERNS.flatMap(({ hints }) => hints), PRIVATE_KEY_HINT, USERINFO_HINT])];
const HINTS = new RegExp([...HINT_LIST].sort((left, right) => right.length - left.length).map(escapeHint).join('|'), 'g');
const PRIVATE_KEY_BIT = 1 << SECRET_PATTERNS.length;
const USERINFO_BIT = PRIVATE_KEY_BIT << 1;
const HINT_OWNERS = new Map(
  HINT_LIST.map((hint) => {
    const holds = (other: string): boolean => hint.includes(other);
    let owners = SECRET_PATTERNS.reduce((bits, { hints }, index) => (hints.some(holds) ? bits | (1 << index) : bits), 0);
    if (holds(PRIVATE_KEY_HINT)) owners |= PRIVATE_KEY_BIT;
    if (holds(USERINFO_HINT)) owners |= USERINFO_BIT;
    return [hint, owners] as const;
  }),
);
/** How far before its hint a match can start (`https://` before `hooks.slack.com`, `sk` before `_live_`). */
const MAX_LEAD = 16;

/** Which scans the text needs (one bit per pattern, then the private-key and userinfo scans), and where each pattern's first hint is. */
function hintedScans(text: string, firstHint: number[]): number {
  let bits = 0;
  HINTS.lastIndex = 0;
  for (let hint = HINTS.exec(text); hint !== null; hint = HINTS.exec(text)) {
    const owners = HINT_OWNERS.get(hint[0]) ?? 0;
    for (let index = 0; index < SECRET_PATTERNS.length; index += 1) if ((owners & ~bits & (1 << index)) !== 0) firstHint[index] = hint.index;
    bits |= owners;
    HINTS.lastIndex = hint.index + 1;
  }
  return bits;
}

function patternSpans(text: string, bits: number, firstHint: readonly number[], spans: SecretSpan[]): void {
  for (let index = 0; index < SECRET_PATTERNS.length; index += 1) {
    if ((bits & (1 << index)) === 0) continue;
    const { pattern, keepLabel, pathSafe } = SECRET_PATTERNS[index] as SecretPattern;
    pattern.lastIndex = Math.max(0, (firstHint[index] ?? 0) - MAX_LEAD);
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const start = match.index + (keepLabel === true ? (match[1] ?? '').length : 0);
      const end = pathSafe === true ? pathSafeEnd(text, start, match.index + match[0].length) : match.index + match[0].length;
      // Cut before a path, a bearer token must still be one.
      if (pathSafe !== true || end - start >= 16) spans.push([start, end]);
    }
  }
}

/**
 * `redactSecrets`, with the number of values it masked (a preview can say
 * "1 value masked"). Three stages, each reading the text the one before
 * masked, as a second redaction would read it, so redaction is idempotent:
 * private keys (whose armour holds spaces, dashes and capitals that other
 * patterns could run into), then vendor shapes and URL userinfo, then
 * credentials by where they stand, after a label or after a flag (a name
 * that ran into an armour, `…KEY-----Cookie:`, reads as it will once the
 * armour is a marker).
 */
export function redactSecretsCounted(text: string): RedactedText {
  if (typeof text !== 'string' || text.length === 0) return { text, masked: 0 };
  let firstHint: number[] = [];
  let bits = hintedScans(text, firstHint);
  let masked = 0;
  let current = text;
  if ((bits & PRIVATE_KEY_BIT) !== 0) {
    const keys = maskSpans(current, privateKeySpans(current));
    if (keys.masked > 0) {
      ({ text: current, masked } = keys);
      firstHint = [];
      bits = hintedScans(current, firstHint);
    }
  }
  const spans: SecretSpan[] = [];
  patternSpans(current, bits, firstHint, spans);
  if ((bits & USERINFO_BIT) !== 0) for (const span of userinfoSpans(current)) spans.push(span);
  const shaped = maskSpans(current, spans);
  masked += shaped.masked;
  const labelled = shaped.text.includes(':') || shaped.text.includes('=');
  if (!labelled && !shaped.text.includes('-')) return { text: shaped.text, masked };
  const placed = labelled ? credentialSpans(shaped.text) : [];
  // After a flag and a blank (`--password X`), beside those after a label (`--password=X`): one mask for both.
  for (const span of flagValueSpans(shaped.text)) placed.push(span);
  const done = maskSpans(shaped.text, placed);
  return { text: done.text, masked: masked + done.masked };
}

export function redactSecrets(text: string): string {
  return redactSecretsCounted(text).text;
}
