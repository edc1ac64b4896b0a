import { ToolExecutionError, ToolPolicyError, ToolUnavailableError, type ToolPolicyDenyReason } from '../../core/internal.js';

/** Host-side denial reasons beyond the engine's own; every message is fixed text, never a path or value. */
const hostReasonText: Record<string, string> = {
  scope_denied: 'was refused: the path is outside the allowed filesystem scope',
  protected_path: 'was refused: the path is protected',
  secret_store: 'was refused: the path is the secret store',
  symlink_refused: 'was refused: the path is, or passes through, a symbolic link that leaves the allowed scope or dangles',
  hardlink_refused: 'was refused: the file has several hard links and is never written through',
  invalid_path: 'was refused: the path is empty, holds a NUL byte, or lies deeper than one call may look up',
  target_changed: 'was refused: its target changed after it was checked and approved (a link swapped in, a file replaced or created, a file a command names rewritten); check the path and call again',
  not_a_file: 'was refused: the path is not a regular file',
  not_a_directory: 'was refused: the path is not a directory',
  too_large: 'was refused: the content exceeds the size limit',
  permission_denied: 'was refused: the user the gateway runs as may not open the path',
  executable_not_found: 'was refused: the executable is not on the system PATH (workspace and relative paths are never run)',
  env_not_allowed: 'was refused: a declared environment variable is not in the allowed list',
  address_not_public: 'was refused: the host resolves to a non-public address',
  insecure_url: 'was refused: only https URLs without credentials are allowed',
  redirect_refused: 'was refused: a redirect led to a URL that is not allowed',
  too_many_redirects: 'was refused: more than 5 redirects',
  header_not_allowed: 'was refused: a request header is not allowed',
  credential_unknown: 'was refused: the credential reference does not resolve',
};

/** A fatal (or, for a pure scope escape, recoverable) host denial that names the tool, never the argument. */
export function hostDenial(tool: string | undefined, reason: ToolPolicyDenyReason, cause?: unknown): ToolPolicyError {
  return new ToolPolicyError(tool ?? 'host', reason, {
    detail: hostReasonText[reason],
    recoverable: reason === 'scope_denied',
    cause,
  });
}

/** The host lacks a program or facility a capability needs. */
export function hostUnavailable(tool: string | undefined, capability: string, detail: string): ToolUnavailableError {
  return new ToolUnavailableError(tool ?? 'host', capability, detail);
}

/** A failure the model can act on (a stale write, text not found), kept free of argument values. */
export function hostFailure(tool: string | undefined, detail: string, cause?: unknown): ToolExecutionError {
  return new ToolExecutionError(tool ?? 'host', { detail, recoverable: true, cause });
}

/** Whether the system refused this process a path by its modes (`EACCES`, `EPERM`), as it never refuses root. */
export function isPermissionDenied(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/** `error`, or, when the system refused a path by its modes, the refusal a tool answers with (`permission_denied`). */
export function asPermissionDenial(tool: string | undefined, error: unknown): unknown {
  return isPermissionDenied(error) ? hostDenial(tool, 'permission_denied', error) : error;
}
