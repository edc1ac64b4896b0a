import type { ToolPolicyDenyReason } from '../../core/internal.js';
import { hostDenial } from '../errors/host-denial.js';

/**
 * Parse a URL the host may fetch: https only, no userinfo, a host present,
 * a port from 1 to 65535.
 * The WHATWG parser normalises decimal, octal, hex and dotless IPv4 forms to
 * dotted quads, so the connector classifies the real address.
 */
export function checkEgressUrl(raw: string, tool: string | undefined, reason: ToolPolicyDenyReason = 'insecure_url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw hostDenial(tool, reason, error);
  }
  // Port 0 parses but names no port: it is refused before any lookup or connection, like every other unusable URL.
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hostname === '' || url.port === '0') throw hostDenial(tool, reason);
  return url;
}
