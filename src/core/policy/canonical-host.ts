/**
 * Hostnames in canonical form: lowercased, IDNA to punycode, one trailing
 * dot removed. The WHATWG `URL` parser does the IDNA mapping (UTS #46), so
 * the engine and every allowlist agree on one normaliser without importing
 * a platform module. Returns undefined for anything that is not a bare host.
 */
export function canonicalHost(host: string): string | undefined {
  if (typeof host !== 'string' || host.length === 0 || host.length > 253 + 1) return undefined;
  if (/[/\\@?#:\s%]/.test(host) && !/^\[[0-9a-fA-F:.]+\]$/.test(host)) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`https://${host}/`).hostname;
  } catch {
    return undefined;
  }
  if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  if (hostname.length === 0 || hostname.endsWith('.') || hostname.startsWith('.')) return undefined;
  return hostname;
}

export type HttpsTarget =
  | { readonly ok: true; readonly host: string }
  | { readonly ok: false; readonly reason: 'insecure_url'; readonly detail: string };

/**
 * Parse a URL for the http egress floor: HTTPS only, no userinfo, a canonical
 * host. A backslash, a control character or a tab is refused before parsing:
 * the WHATWG parser reads a backslash as `/` and drops tabs and newlines, while
 * other URL parsers (an upstream server's, in another language) keep them,
 * so `https://allowed.example\@evil.example/` would be judged by one host
 * and fetched from the other.
 */
export function parseHttpsTarget(url: string): HttpsTarget {
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (typeof url !== 'string' || /[\\\u0000-\u001f\u007f]/.test(url)) return { ok: false, reason: 'insecure_url', detail: 'was refused: the URL holds a backslash or a control character, which URL parsers read differently' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'insecure_url', detail: 'was refused: the URL cannot be parsed' };
  }
  if (parsed.protocol !== 'https:') return { ok: false, reason: 'insecure_url', detail: 'was refused: only https URLs are allowed' };
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'insecure_url', detail: 'was refused: URLs with credentials (userinfo) are not allowed' };
  }
  const host = canonicalHost(parsed.hostname);
  if (host === undefined) return { ok: false, reason: 'insecure_url', detail: 'was refused: the URL has no valid host' };
  // The parser already refuses ports above 65535; port 0 parses, and a connection to it must never be tried.
  if (parsed.port === '0') return { ok: false, reason: 'insecure_url', detail: 'was refused: port 0 is not a port to connect to' };
  return { ok: true, host };
}

/**
 * A domain pattern: an exact canonical FQDN, or `*.` + FQDN for strict
 * subdomains. There is no implicit suffix match.
 */
export interface DomainPattern {
  readonly host: string;
  readonly subdomains: boolean;
}

export function parseDomainPattern(pattern: string): DomainPattern | undefined {
  if (typeof pattern !== 'string') return undefined;
  const subdomains = pattern.startsWith('*.');
  const host = canonicalHost(subdomains ? pattern.slice(2) : pattern);
  if (host === undefined || host.includes('*')) return undefined;
  return { host, subdomains };
}

export function matchDomain(pattern: DomainPattern, host: string): boolean {
  return pattern.subdomains ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}
