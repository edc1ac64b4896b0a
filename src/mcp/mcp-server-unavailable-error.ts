import { redactSecrets, ToolgateError } from '../core/internal.js';
import { clipWhole } from '../core/policy/clip-whole.js';
import { scanHiddenCharacters } from './scan-hidden-characters.js';

const MAX_REASON = 300;

/**
 * An upstream server that did not start, did not finish its handshake in
 * time, or stopped. It names the server and why, in the words of the failure
 * (secrets masked, one line, clipped); `stderr` holds the newest lines the
 * server wrote. Retryable: the connection tries it again later.
 */
export class McpServerUnavailableError extends ToolgateError {
  readonly server: string;
  /** The failure, one line, masked. */
  readonly reason: string;
  /** The tail of the server's stderr, masked; empty when it wrote nothing (or is reached over HTTP). */
  readonly stderr: string;
  constructor(server: string, cause: unknown, stderr: string) {
    const reason = describeFailure(cause);
    super('TOOL_UNAVAILABLE', `MCP server "${server}" is unavailable: ${reason}.`, { cause, retryable: true });
    this.server = server;
    this.reason = reason;
    this.stderr = stderr;
  }
}

function describeFailure(cause: unknown): string {
  const text = cause instanceof Error ? cause.message : String(cause);
  const line = scanHiddenCharacters(redactSecrets(text), true).text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  if (line.length === 0) return 'it failed without saying why';
  return line.length > MAX_REASON ? `${clipWhole(line, MAX_REASON)}…` : line;
}
