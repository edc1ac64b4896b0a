import { ToolUnavailableError, type ResolvedAction, type ToolHost } from '../core/internal.js';

/**
 * Right before an upstream tool with a URL target is called, refuse it when
 * the URL's host is, or resolves to, a non-public address (loopback, a
 * private network, cloud metadata), as `http_request` is refused even for a
 * name the allowed domains list: the upstream fetches the URL itself, with
 * no guarded connector of ours in the way, so this is the last point the
 * gateway can judge where it leads. A host that cannot judge it refuses the
 * call. The upstream resolves the name again on its own: an answer that
 * changes between the two lookups, or a redirect it follows, is not caught.
 */
export async function checkUpstreamDestination(host: ToolHost, tool: string, action: ResolvedAction | undefined, signal?: AbortSignal): Promise<void> {
  const url = action?.http?.url;
  if (url === undefined) return;
  const egress = host.egress;
  if (egress?.checkDestination === undefined) throw new ToolUnavailableError(tool, 'egress', 'the host cannot check where its URL target leads');
  await egress.checkDestination(url, tool, signal);
}
