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
}

// Secret-named keys: FOO_KEY / FOO_SECRET / FOO_TOKEN / FOO_PASSWORD (any case with a separator),
// camelCase apiKey / clientSecret / accessToken, and bare password / passwd.
// One start per identifier run (the lookbehind below) keeps these linear on long inputs.
const SECRET_NAME =
  '(?:[A-Za-z0-9_.-]*[_.-](?:KEY|Key|key|SECRET|Secret|secret|TOKEN|Token|token|PASSWORD|Password|password|PASSWD|passwd|PASS|pass|CREDENTIALS?|Credentials?|credentials?)|[A-Za-z0-9]*[a-z0-9](?:Key|Secret|Token|Password|Passwd|Credentials?)|password|passwd|PASSWORD|Password)';

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    id: 'pem-private-key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  { id: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b/g },
  { id: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { id: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { id: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g },
  { id: 'slack-token', pattern: /\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g },
  { id: 'slack-webhook', pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g },
  { id: 'stripe-key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}/g },
  { id: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { id: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { id: 'authorization-header', pattern: /\b((?:Proxy-)?Authorization["']?\s*[:=]\s*["']?(?:Bearer|Basic|Token|Digest|Bot)\s+)[^\s"',;]+/gi, keepLabel: true },
  { id: 'bearer-token', pattern: /\b(Bearer\s+)(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{16,}/g, keepLabel: true },
  { id: 'url-userinfo', pattern: /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+(@)/gi, keepLabel: true, keepSuffix: true },
  { id: 'aws-secret-access-key', pattern: /\b((?:aws_secret_access_key|SecretAccessKey)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi, keepLabel: true },
  { id: 'secret-assignment', pattern: new RegExp(`(?<![A-Za-z0-9_.-])(${SECRET_NAME}["']?\\s*[:=]\\s*["']?)(?!\\[redacted\\])[^\\s"',;}&]{4,}`, 'g'), keepLabel: true },
];

export function redactSecrets(text: string): string {
  if (typeof text !== 'string' || text.length === 0) return text;
  let result = text;
  for (const { pattern, keepLabel, keepSuffix } of SECRET_PATTERNS) {
    pattern.lastIndex = 0;
    result = result.replace(pattern, (...groups: unknown[]) => {
      const captures = groups.slice(1, -2).filter((group): group is string => typeof group === 'string');
      const label = keepLabel === true ? (captures[0] ?? '') : '';
      const suffix = keepSuffix === true ? (captures[captures.length - 1] ?? '') : '';
      return `${label}${REDACTED}${suffix}`;
    });
  }
  return result;
}
