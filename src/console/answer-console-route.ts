import type { IncomingMessage, ServerResponse } from 'node:http';
import { ToolgateError } from '../core/internal.js';
import type { AuditSource, ConsoleOptions } from './console-types.js';
import { sendJson, sendPage } from './console-responses.js';
import type { LiveFeed } from './live-feed.js';
import { approvalDecisionOf, readJson, receiptFilter } from './read-console-request.js';
import { reviewWithheld } from './review-withheld.js';
import { sendMedia } from './send-media.js';
import type { ConsoleRoute } from './route-console-request.js';

/** What an authenticated request is answered from. */
export interface ConsoleAnswerContext {
  readonly options: ConsoleOptions;
  readonly audit: AuditSource;
  readonly live: LiveFeed;
  readonly port: number;
  readonly token: string;
}

/** Answer an authenticated request: one route, one answer. */
export async function answerConsoleRoute(route: Exclude<ConsoleRoute, { type: 'favicon' }>, request: IncomingMessage, response: ServerResponse, url: URL, context: ConsoleAnswerContext): Promise<void> {
  const { options, audit, live } = context;
  switch (route.type) {
    case 'page':
      return sendPage(response, context.port, context.token);
    case 'events':
      return live.attach(request, response);
    case 'approvals':
      return sendJson(response, 200, options.approvals.pending());
    case 'closed-approvals':
      return sendJson(response, 200, options.approvals.closed());
    case 'decide': {
      const decision = approvalDecisionOf(await readJson(request));
      if (decision === undefined) return sendJson(response, 400, { error: 'decision must be once, session, always or reject' });
      const found = options.approvals.decide(route.approvalId, decision);
      return sendJson(response, found ? 200 : 404, found ? { ok: true } : { error: 'no such pending approval' });
    }
    case 'calls':
      return sendJson(response, 200, live.recent);
    case 'receipts':
      return sendJson(response, 200, await audit.list(receiptFilter(url)));
    case 'receipt': {
      const receiptId = decodedPathSegment(route.receiptId);
      const detail = receiptId === undefined ? undefined : await audit.get(receiptId);
      return detail === undefined ? sendJson(response, 404, { error: 'no such receipt' }) : sendJson(response, 200, detail);
    }
    case 'media':
      return sendMedia(response, route.digest, audit, options.media);
    case 'policy':
      return sendJson(response, 200, options.describePolicy?.() ?? { version: options.registry.policy.version });
    case 'verify':
      return sendJson(response, 200, await audit.verify());
    case 'unresolved':
      return sendJson(response, 200, (await options.unresolved?.()) ?? []);
    case 'withheld':
      return sendJson(response, 200, reviewWithheld((await options.withheld?.list()) ?? []));
    case 'approve-withheld':
      return approveWithheld(route.name, request, response, context);
    case 'not-found':
      return sendJson(response, 404, { error: 'not found' });
  }
}

/** A path segment's percent-decoding; a spelling that is none (`%E0%A4%`) names no receipt, instead of failing the request as an internal error. */
function decodedPathSegment(spelled: string): string | undefined {
  try {
    return decodeURIComponent(spelled);
  } catch {
    return undefined;
  }
}

/** A person approves a withheld MCP definition by the digest of the one they reviewed. */
async function approveWithheld(name: string, request: IncomingMessage, response: ServerResponse, { options, live }: ConsoleAnswerContext): Promise<void> {
  if (options.withheld === undefined) return sendJson(response, 404, { error: 'no MCP pinning is configured' });
  const digest = (await readJson(request)) as { digest?: unknown } | undefined;
  if (typeof digest?.digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest.digest)) return sendJson(response, 400, { error: 'digest must be the SHA-256 of the definition you reviewed' });
  try {
    await options.withheld.approve(name, digest.digest);
  } catch (error) {
    // Not withheld any more, or changed again since it was shown: the person must look again.
    if (error instanceof ToolgateError && error.code === 'CONFIGURATION_INVALID') return sendJson(response, 409, { error: error.message });
    throw error;
  }
  live.broadcast('withheld', { approved: name });
  return sendJson(response, 200, { ok: true });
}
