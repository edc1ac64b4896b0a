import { ToolTimeoutError } from '../core/internal.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './mcp-types.js';
import type { UpstreamServer } from './create-mcp-capability.js';

/**
 * Hold a call to a server that said its tools changed (`list_changed`) until
 * they are listed again. Until then its entries are the definitions a person
 * approved, and the server has just said they no longer hold: a call approved
 * in that moment would run what nobody saw. A change it announces while the
 * call waits is waited for as well, so the call is judged against a listing
 * taken after every change the server announced. The wait, a refresh's gap
 * included (`createRefreshScheduler`), is bounded by the call's timeout, past
 * which the call fails as timed out, and ends with the call's signal.
 */
export async function waitForRelisting(server: UpstreamServer, name: string, signal: AbortSignal | undefined): Promise<void> {
  let relisting = server.relisting;
  if (relisting === undefined) return;
  if (signal?.aborted === true) throw signal.reason as Error;
  const timeoutMs = server.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<false>((resolve, reject) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    onAbort = () => reject(signal?.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    while (relisting !== undefined) {
      const listed = await Promise.race([relisting.then(() => true), ended]);
      if (!listed) throw new ToolTimeoutError(name, timeoutMs);
      // A settled listing is done with; one announced since is a new promise.
      relisting = server.relisting === relisting ? undefined : server.relisting;
    }
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}
