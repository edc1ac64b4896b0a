import type { Agent, Dispatcher } from 'undici';
import { ToolTimeoutError, ToolUnavailableError, type EgressCapability, type EgressRequest, type EgressResponse, type MediaStore } from '../../core/internal.js';
import { hostDenial } from '../errors/host-denial.js';
import type { EgressOptions, SecretStore } from '../node-host-types.js';
import { decodeText, sniffMediaType } from '../stores/sniff-media-type.js';
import { checkEgressUrl } from './check-egress-url.js';
import { createGuardedConnector, defaultLookup } from './create-guarded-connector.js';
import { RequestAbort } from './request-abort.js';
import { bareHostname, NonPublicAddressError, resolvePublicAddresses } from './resolve-public-addresses.js';

export interface CreateEgressCapabilityOptions extends EgressOptions {
  readonly secrets: SecretStore;
  readonly mediaStore: MediaStore;
}

export interface NodeEgressCapability extends EgressCapability {
  checkDestination(url: string, tool: string, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

const MAX_HOPS = 5;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/**
 * Framing and hop-by-hop headers, and those a server or proxy may honour to
 * act on another method, path or host than the request line and `Host` name
 * (`X-HTTP-Method-Override`, `X-Original-URL`, `X-Forwarded-Host`, …): what
 * the policy judged and a person approved is what the server acts on.
 */
const FORBIDDEN_HEADERS =
  /^(host|connection|content-length|transfer-encoding|upgrade|te|trailer|keep-alive|expect|proxy-.*|x-http-method-override|x-http-method|x-method-override|x-original-url|x-rewrite-url|x-forwarded-host|x-host|forwarded)$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/;
const TEXTUAL = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|[a-z0-9.+-]*\+(json|xml)))/;

/**
 * SSRF-safe HTTPS: the guarded connector checks every resolved address;
 * redirects are followed by hand, each hop re-checked (https, no userinfo,
 * the allowlist, at most 5); request and response bytes and the whole
 * exchange are bounded; a credential reference is resolved here and attached
 * here, so the secret never reaches the engine, an event or a redirect to
 * another origin.
 */
export function createEgressCapability(options: CreateEgressCapabilityOptions): NodeEgressCapability {
  const lookup = options.lookup ?? defaultLookup;
  // undici loads on the first request: a host that never fetches (most processes) starts without it.
  let agent: Promise<Agent> | undefined;
  const connectionPool = (): Promise<Agent> => (agent ??= import('undici').then(({ Agent }) => new Agent({ connect: createGuardedConnector({ ...options, lookup }), connections: 16 })));
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const maxRequestBytes = options.maxRequestBytes ?? 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const allowedDomains = new Set((options.allowedDomains ?? []).map((domain) => domain.toLowerCase()));

  async function perform(request: EgressRequest, signal: AbortSignal | undefined): Promise<EgressResponse> {
    const tool = request.tool;
    signal?.throwIfAborted();
    const first = checkEgressUrl(request.url, tool);
    let method = request.method.toUpperCase();
    if (!METHODS.has(method)) throw hostDenial(tool, 'header_not_allowed');
    const headers = await buildHeaders(request);
    let body: string | undefined = request.body;
    if (body !== undefined && Buffer.byteLength(body) > maxRequestBytes) throw hostDenial(tool, 'too_large');

    const abort = new RequestAbort(signal, timeoutMs);
    let url = first;
    try {
      for (let hop = 0; ; hop += 1) {
        const response = await (await connectionPool()).request({ origin: url.origin, path: `${url.pathname}${url.search}`, method, headers, body: body ?? null, signal: abort });
        const location = response.headers.location;
        if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
          await response.body.dump();
          if (hop + 1 > MAX_HOPS) throw hostDenial(tool, 'too_many_redirects');
          const next = checkEgressUrl(new URL(location, url).href, tool, 'redirect_refused');
          if (!redirectAllowed(first, next)) throw hostDenial(tool, 'redirect_refused');
          if (next.origin !== url.origin) dropCredentials(headers, request);
          if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
            if (method !== 'HEAD') method = 'GET';
            body = undefined;
          }
          url = next;
          continue;
        }
        return await readResponse(response, url, maxBytes, options.mediaStore);
      }
    } catch (error) {
      throw translate(error, tool, signal, abort, timeoutMs);
    } finally {
      abort.dispose();
    }
  }

  function redirectAllowed(first: URL, next: URL): boolean {
    if (options.allowRedirect !== undefined) return options.allowRedirect(next);
    return next.hostname === first.hostname || allowedDomains.has(next.hostname);
  }

  async function buildHeaders(request: EgressRequest): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      const lower = name.toLowerCase();
      if (!TOKEN.test(lower) || FORBIDDEN_HEADERS.test(lower) || /[\r\n\0]/.test(value)) throw hostDenial(request.tool, 'header_not_allowed');
      headers[lower] = value;
    }
    if (request.credentialRef !== undefined) {
      const name = credentialHeaderName(request);
      if (!TOKEN.test(name) || FORBIDDEN_HEADERS.test(name)) throw hostDenial(request.tool, 'header_not_allowed');
      const secret = await options.secrets.get(request.credentialRef);
      if (secret === undefined || /[\r\n\0]/.test(secret)) throw hostDenial(request.tool, 'credential_unknown');
      headers[name] = request.credentialHeader === undefined ? `Bearer ${secret}` : secret;
    }
    return headers;
  }

  /**
   * The connector's address check, for a URL an upstream program fetches on
   * its own: the same answers, judged the same way. A name that does not
   * resolve here is refused too: the program resolves it again with its own
   * resolver (a container's DNS, or a name server that fails the gateway and
   * answers the program with a private address), so a failed lookup says
   * nothing about where the fetch would lead.
   */
  async function checkDestination(url: string, tool: string, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    const hostname = bareHostname(checkEgressUrl(url, tool).hostname);
    try {
      await resolvePublicAddresses(hostname, lookup);
    } catch (error) {
      if (error instanceof NonPublicAddressError) throw hostDenial(tool, 'address_not_public');
      throw new ToolUnavailableError(tool, 'egress', 'the host of its URL target did not resolve here, so where the fetch would lead cannot be checked');
    }
  }

  return {
    fetch(request, signal, callOptions) {
      return callOptions?.retainWork === undefined ? perform(request, signal) : callOptions.retainWork(() => perform(request, signal));
    },
    checkDestination,
    close: async () => {
      if (agent !== undefined) await (await agent).close();
    },
  };
}

function credentialHeaderName(request: EgressRequest): string {
  return (request.credentialHeader ?? 'authorization').toLowerCase();
}

/**
 * Before a hop to another origin: the attached credential, and the caller's
 * own `Authorization` and `Cookie`, which were meant for the origin they were
 * sent to (browsers drop them the same way). A redirect must not carry them
 * to a host the caller never addressed.
 */
function dropCredentials(headers: Record<string, string>, request: EgressRequest): void {
  delete headers.authorization;
  delete headers.cookie;
  if (request.credentialRef !== undefined) delete headers[credentialHeaderName(request)];
}

async function readResponse(response: Dispatcher.ResponseData, url: URL, maxBytes: number, mediaStore: MediaStore): Promise<EgressResponse> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    const room = maxBytes - size;
    if (chunk.byteLength > room) {
      chunks.push(chunk.subarray(0, room));
      size = maxBytes;
      truncated = true;
      response.body.destroy();
      break;
    }
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  const bytes = Buffer.concat(chunks, size);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const contentType = (headers['content-type'] ?? '').toLowerCase();
  const text = contentType === '' || TEXTUAL.test(contentType) ? decodeText(bytes) : undefined;
  if (text !== undefined || bytes.byteLength === 0) {
    return { status: response.statusCode, headers, body: text ?? '', truncated, url: url.href };
  }
  const declared = contentType.split(';')[0]?.trim() ?? '';
  const media = await mediaStore.put(bytes, declared === '' ? sniffMediaType(bytes) : declared);
  return { status: response.statusCode, headers, body: '', media, truncated, url: url.href };
}

/** Connector refusals become typed denials; our deadline a timeout; the caller's cancel stays a cancel. */
function translate(error: unknown, tool: string | undefined, signal: AbortSignal | undefined, abort: RequestAbort, timeoutMs: number): unknown {
  if (signal?.aborted === true) return signal.reason;
  if (hasCause(error, (candidate) => candidate instanceof NonPublicAddressError)) return hostDenial(tool, 'address_not_public');
  if (abort.timedOut) return new ToolTimeoutError(tool ?? 'http_request', timeoutMs);
  return error;
}

function hasCause(error: unknown, test: (candidate: unknown) => boolean): boolean {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    if (test(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
