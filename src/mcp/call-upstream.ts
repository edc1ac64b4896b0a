import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolExecutionError, ToolTimeoutError, type McpCallInput } from '../core/index.js';

export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

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
 * total cap bounds it anyway. An abort of `signal` makes the SDK send
 * `notifications/cancelled` upstream and reject with the abort reason, which
 * the pipeline classifies as a cancellation.
 */
export async function callUpstream(options: CallUpstreamOptions): Promise<CallToolResult> {
  const { client, name, input, signal } = options;
  const timeout = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const onProgress = input.onProgress;
  try {
    const result = await client.callTool({ name: input.tool, arguments: { ...input.arguments } }, undefined, {
      timeout,
      resetTimeoutOnProgress: true,
      ...(options.maxTotalTimeoutMs === undefined ? {} : { maxTotalTimeout: options.maxTotalTimeoutMs }),
      ...(signal === undefined ? {} : { signal }),
      // Always ask for progress: without a progress token the upstream cannot reset the timeout.
      onprogress: (progress) => {
        onProgress?.({
          progress: progress.progress,
          ...(progress.total === undefined ? {} : { total: progress.total }),
          ...(progress.message === undefined ? {} : { message: options.cleanText(progress.message) }),
        });
      },
    });
    return result as CallToolResult;
  } catch (error) {
    // The SDK wraps an abort as a timeout error; the caller's own reason is what marks it a cancellation.
    if (signal?.aborted === true) throw signal.reason as Error;
    if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
      const elapsedCap = options.maxTotalTimeoutMs !== undefined && /total/i.test(error.message) ? options.maxTotalTimeoutMs : timeout;
      throw new ToolTimeoutError(name, elapsedCap);
    }
    throw new ToolExecutionError(name, { cause: error, detail: failureDetail(error) });
  }
}

/** What went wrong, in words that hold no upstream text. */
function failureDetail(error: unknown): string {
  if (!(error instanceof McpError)) return 'the MCP server could not be reached';
  // The SDK rejects every pending request this way when the transport closes: the server exited, or sent a message past maxMessageBytes.
  if (error.code === (ErrorCode.ConnectionClosed as number)) return 'the connection to the MCP server closed';
  return `the MCP server answered with error ${error.code}`;
}
