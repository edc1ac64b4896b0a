/**
 * Scrub secret-shaped spans from text, fail closed: the whole matched
 * secret is replaced by `[redacted]` (labels such as `API_KEY=` or
 * `Bearer ` stay, so a reader sees what was hidden). Used for approval
 * previews, event `toolInput` and receipt summaries. Ordinary prose, git
 * SHAs, UUIDs and hashes are left alone: every pattern needs a vendor
 * prefix, a PEM armour line, a header or an explicit secret-named label.
 */
export const REDACTED = '[redacted]';

interface SecretPattern {
  readonly id: string;
  readonly pattern: RegExp;
  /** Keep capture group 1 (a label) before the marker. */
  readonly keepLabel?: boolean;
  /** Keep the last capture group (a delimiter such as `@`) after the marker. */
  readonly keepSuffix?: boolean;
  /** Literals, matched regardless of case, one of which every match contains: a text with none skips the pattern. */
  readonly hints: readonly string[];
}

// Secret-named keys: FOO_KEY / FOO_SECRET / FOO_TOKEN / FOO_PASSWORD (any case with a separator),
// camelCase apiKey / clientSecret / accessToken, and bare password / passwd.
const SECRET_NAME =
  '(?:[A-Za-z0-9_.-]*[_.-](?:KEY|Key|key|SECRET|Secret|secret|TOKEN|Token|token|PASSWORD|Password|password|PASSWD|passwd|PASS|pass|CREDENTIALS?|Credentials?|credentials?)|[A-Za-z0-9]*[a-z0-9](?:Key|Secret|Token|Password|Passwd|Credentials?)|password|passwd|PASSWORD|Password)';

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    id: 'pem-private-key', hints: ['private key'],
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  { id: 'aws-access-key-id', hints: ['akia', 'asia', 'abia', 'acca', 'aida', 'aroa', 'aipa', 'anpa', 'anva', 'apka'], pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b/g },
  { id: 'github-token', hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { id: 'anthropic-key', hints: ['sk-ant-'], pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { id: 'openai-key', hints: ['sk-'], pattern: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g },
  { id: 'slack-token', hints: ['xox', 'xapp-'], pattern: /\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g },
  { id: 'slack-webhook', hints: ['hooks.slack.com'], pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g },
  { id: 'stripe-key', hints: ['_live_', '_test_', 'whsec_'], pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}/g },
  { id: 'google-api-key', hints: ['aiza'], pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { id: 'jwt', hints: ['eyj'], pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { id: 'authorization-header', hints: ['authorization'], pattern: /\b((?:Proxy-)?Authorization["']?\s*[:=]\s*["']?(?:Bearer|Basic|Token|Digest|Bot)\s+)[^\s"',;]+/gi, keepLabel: true },
  { id: 'bearer-token', hints: ['bearer'], pattern: /\b(Bearer\s+)(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{16,}/g, keepLabel: true },
  // A scheme starts only where no scheme character precedes it: tried from every letter of `a.a.a…://`, the scan
  // would be quadratic in text the model controls (64 KB took over a second).
  { id: 'url-userinfo', hints: ['://'], pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+(@)/gi, keepLabel: true, keepSuffix: true },
  { id: 'aws-secret-access-key', hints: ['aws_secret_access_key', 'secretaccesskey'], pattern: /\b((?:aws_secret_access_key|SecretAccessKey)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi, keepLabel: true },
];

// Secret-named assignments are found separator-first: one scan for `:` / `=`, a walk back over the
// name, then the name is checked against SECRET_NAME — the long alternation never runs per position.
const SEPARATOR = /[:=]/g;
const SECRET_NAME_EXACT = new RegExp(`^${SECRET_NAME}$`);
const ASSIGNED_VALUE = /["']?\s*[:=]\s*["']?(?!\[redacted\])([^\s"',;}&]{4,})/y;

function isNameChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 46 || code === 45;
}

function redactAssignments(text: string): string {
  let output = '';
  let last = 0;
  SEPARATOR.lastIndex = 0;
  for (let separator = SEPARATOR.exec(text); separator !== null; separator = SEPARATOR.exec(text)) {
    let end = separator.index;
    while (end > last && /\s/.test(text[end - 1] ?? '')) end -= 1;
    if (end > last && (text[end - 1] === '"' || text[end - 1] === "'")) end -= 1;
    let start = end;
    while (start > last && isNameChar(text.charCodeAt(start - 1))) start -= 1;
    if (start === end || !SECRET_NAME_EXACT.test(text.slice(start, end))) continue;
    ASSIGNED_VALUE.lastIndex = end;
    const value = ASSIGNED_VALUE.exec(text);
    if (value === null) continue;
    const valueEnd = ASSIGNED_VALUE.lastIndex;
    output += `${text.slice(last, valueEnd - (value[1] ?? '').length)}${REDACTED}`;
    last = valueEnd;
    SEPARATOR.lastIndex = valueEnd;
  }
  return last === 0 ? text : output + text.slice(last);
}

const escapeHint = (hint: string): string => hint.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/**
 * Each pattern's hints as one case-insensitive test, and all of them as
 * one: most strings (names, ids, prose) hold no hint and no `:` or `=`, and
 * leave after a single scan. The `i` flag folds case as the patterns' own
 * `i` flag does, so a text a pattern would match always passes its hint.
 */
const HINT_TESTS: readonly RegExp[] = SECRET_PATTERNS.map(({ hints }) => new RegExp(hints.map(escapeHint).join('|'), 'i'));
const ANY_HINT = new RegExp(SECRET_PATTERNS.flatMap(({ hints }) => hints).map(escapeHint).join('|'), 'i');

export function redactSecrets(text: string): string {
  if (typeof text !== 'string' || text.length === 0) return text;
  const assigns = text.includes(':') || text.includes('=');
  if (!assigns && !ANY_HINT.test(text)) return text;
  let result = text;
  for (let index = 0; index < SECRET_PATTERNS.length; index += 1) {
    if (!(HINT_TESTS[index] as RegExp).test(text)) continue;
    const { pattern, keepLabel, keepSuffix } = SECRET_PATTERNS[index] as SecretPattern;
    pattern.lastIndex = 0;
    result = result.replace(pattern, (...groups: unknown[]) => {
      const captures = groups.slice(1, -2).filter((group): group is string => typeof group === 'string');
      const label = keepLabel === true ? (captures[0] ?? '') : '';
      const suffix = keepSuffix === true ? (captures[captures.length - 1] ?? '') : '';
      return `${label}${REDACTED}${suffix}`;
    });
  }
  return assigns ? redactAssignments(result) : result;
}
