import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { ToolExecutionError, ToolTimeoutError, type McpCallInput } from '../core/internal.js';
import { asCallToolResult, findMalformedCallResult } from './check-upstream-call-result.js';
import { abortReasonText } from './abort-reason-text.js';
import { leanToolsCallOf, type ToolsCallOptions } from './lean-tools-call.js';
import { isUpstreamErrorResponse } from './upstream-error-response.js';
import { NotAnMcpResultError, UPSTREAM_RESULT_SCHEMA } from './upstream-result-schema.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './mcp-types.js';

export interface CallUpstreamOptions {
  readonly client: Client;
  /** The toolgate name, for errors. */
  readonly name: string;
  readonly input: McpCallInput;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number | undefined;
  readonly maxTotalTimeoutMs: number | undefined;
  /** Progress messages are upstream text on their way to a client and a person: scanned like results. */
  readonly cleanText: (text: string) => string;
}

/**
 * One `tools/call` upstream. The timeout restarts on every progress
 * notification (a long job that reports progress is alive); an optional
 * total cap bounds it anyway. An abort of `signal` sends
 * `notifications/cancelled` upstream and rejects with the abort reason, which
 * the pipeline classifies as a cancellation. A stdio upstream's call goes
 * past the SDK's request machinery (lean-tools-call.ts), which keeps all of
 * that; any other upstream's goes through the SDK's `request`.
 *
 * The result is taken as the SDK's result schema takes it, in plain code
 * (`UPSTREAM_RESULT_SCHEMA`), and read once, for what the gateway uses
 * (`findMalformedCallResult`), rather than through the SDK's `callTool`: it validates the
 * whole result against the SDK's schema, then `structuredContent` against
 * the upstream's output schema as sent — patterns included, which toolgate
 * never runs for an untrusted server. The pipeline validates the value
 * against the definition's own copy of that schema.
 */
export async function callUpstream(options: CallUpstreamOptions): Promise<CallToolResult> {
  const { client, name, input, signal } = options;
  const timeout = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const onProgress = input.onProgress;
  const callOptions = {
    timeout,
    ...(options.maxTotalTimeoutMs === undefined ? {} : { maxTotalTimeout: options.maxTotalTimeoutMs }),
    ...(signal === undefined ? {} : { signal }),
    // Always ask for progress: without a progress token the upstream cannot reset the timeout.
    onprogress: (progress: Progress) => {
      onProgress?.({
        progress: progress.progress,
        ...(progress.total === undefined ? {} : { total: progress.total }),
        ...(progress.message === undefined ? {} : { message: options.cleanText(progress.message) }),
      });
    },
  };
  const lean = leanToolsCallOf(client);
  let result: Record<string, unknown>;
  try {
    result = lean === undefined ? await sdkRequest(client, input, callOptions) : await lean(input.tool, input.arguments, callOptions);
  } catch (error) {
    // The SDK wraps an abort as a timeout error; the caller's own reason is what marks it a cancellation.
    if (signal?.aborted === true) throw signal.reason as Error;
    if (isOwnTimeout(error)) {
      const elapsedCap = options.maxTotalTimeoutMs !== undefined && /total/i.test(error.message) ? options.maxTotalTimeoutMs : timeout;
      throw new ToolTimeoutError(name, elapsedCap);
    }
    throw new ToolExecutionError(name, { cause: error, detail: failureDetail(error) });
  }
  const problem = findMalformedCallResult(result);
  if (problem !== undefined) throw new ToolExecutionError(name, { detail: `the MCP server sent a malformed result (${problem})` });
  return asCallToolResult(result);
}

/**
 * The call through the SDK's `request` (an upstream over HTTP). The SDK
 * turns an abort's reason into text before it rejects the call: a reason
 * with no text form would throw there, inside the abort listener, and leave
 * the call waiting forever. It is given a signal of its own whose reason is
 * always an Error; the caller still gets its own reason (`callUpstream`).
 */
async function sdkRequest(client: Client, input: McpCallInput, options: ToolsCallOptions): Promise<Record<string, unknown>> {
  const { signal } = options;
  const own = new AbortController();
  const forward = (): void => own.abort(new Error(abortReasonText(signal?.reason)));
  if (signal?.aborted === true) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  try {
    const request = { method: 'tools/call', params: { name: input.tool, arguments: { ...input.arguments } } };
    return await client.request(request, UPSTREAM_RESULT_SCHEMA, { ...options, signal: own.signal, resetTimeoutOnProgress: true });
  } finally {
    signal?.removeEventListener('abort', forward);
  }
}

/** The call's own timeout (or total cap) ran out: not an upstream's error response under the same code. */
function isOwnTimeout(error: unknown): error is McpError {
  return error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number) && !isUpstreamErrorResponse(error);
}

/** What went wrong, in words that hold no upstream text. */
function failureDetail(error: unknown): string {
  if (error instanceof NotAnMcpResultError) return 'the MCP server sent a malformed result (not an MCP result object)';
  if (!(error instanceof McpError)) return 'the MCP server could not be reached';
  // The SDK rejects every pending request this way when the transport closes: the server exited, or sent a message past
  // maxMessageBytes. An upstream's error response may carry the same code: it says only what the server answered.
  if (!isUpstreamErrorResponse(error) && error.code === (ErrorCode.ConnectionClosed as number)) return 'the connection to the MCP server closed';
  return `the MCP server answered with error ${error.code}`;
}
