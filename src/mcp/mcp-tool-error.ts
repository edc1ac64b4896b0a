import { ToolgateError } from '../core/internal.js';
import { redactedLine } from '../core/policy/redacted-line.js';

const MAX_UPSTREAM_TEXT = 1000;

/**
 * An upstream tool answered with `isError: true`. Its own explanation is
 * what lets a model correct the call, so it is carried in the message —
 * secrets redacted, hidden characters already stripped, clipped — and
 * marked as the upstream's words. Loop-correctable: the model may adapt.
 */
export class McpToolError extends ToolgateError {
  readonly server: string;
  constructor(tool: string, server: string, upstreamText: string) {
    const clipped = redactedLine(upstreamText, MAX_UPSTREAM_TEXT);
    super('EXECUTION_FAILED', `Tool "${tool}" reported an error from MCP server "${server}"${clipped.length === 0 ? '' : `: ${clipped}`}.`, {
      tool,
      loopCorrectable: true,
      recoverable: true,
    });
    this.server = server;
  }
}
