/**
 * Scrub secret-shaped spans from text, fail closed: a match is replaced
 * whole by `[redacted]`. Used for approval previews, event `toolInput` and
 * receipt summaries. Ordinary prose, git SHAs, UUIDs and hashes are left
 * alone: every pattern needs a vendor prefix or an explicit key/label.
 */
export const REDACTED = '[redacted]';

interface SecretPattern {
  readonly id: string;
  readonly pattern: RegExp;
  /** Keep capture group 1 (a label such as `API_KEY=`) and redact the rest. */
  readonly keepLabel?: boolean;
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { id: 'pem-private-key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  { id: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  { id: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { id: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { id: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { id: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { id: 'stripe-key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { id: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { id: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { id: 'authorization-header', pattern: /\b((?:Authorization|Proxy-Authorization)\s*[:=]\s*(?:Bearer|Basic|Token|Digest)\s+)[^\s"',;]+/gi, keepLabel: true },
  { id: 'bearer-token', pattern: /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{12,}/g, keepLabel: true },
  { id: 'url-userinfo', pattern: /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+(?::[^\s/@]*)?@/gi, keepLabel: true },
  {
    id: 'secret-assignment',
    pattern: /\b([A-Za-z0-9_]*(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PWD|CREDENTIALS?)["']?\s*[:=]\s*["']?)[^\s"',;}]{4,}/gi,
    keepLabel: true,
  },
  { id: 'aws-secret-access-key', pattern: /\b(aws_secret_access_key\s*[:=]\s*)[A-Za-z0-9/+=]{40}\b/gi, keepLabel: true },
];

export function redactSecrets(text: string): string {
  let result = text;
  for (const { pattern, keepLabel } of SECRET_PATTERNS) {
    pattern.lastIndex = 0;
    result = result.replace(pattern, (_match: string, label?: unknown) =>
      keepLabel === true && typeof label === 'string' ? `${label}${REDACTED}` : REDACTED,
    );
  }
  return result;
}
