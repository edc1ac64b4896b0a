import { ToolPolicyError, type ResolvedAction, type ResolvedPath, type ToolHost } from '../core/internal.js';

/**
 * Right before an upstream tool is called, resolve its path targets again
 * and refuse (`target_changed`) when any differs from what policy and the
 * approver judged: another real path, a file that appeared or vanished, a
 * protected flag that flipped, another file at the same name (a link or a
 * rename swapped in while the approval waited), a written file that holds
 * other bytes than when it was judged (its content stamp). The upstream opens the path
 * itself, so this is the last point the gateway can check; a swap in the
 * moment between this check and the upstream's own open is not caught.
 * A call resolved without a host (lexically) has nothing to compare.
 */
export async function recheckUpstreamTargets(host: ToolHost, tool: string, action: ResolvedAction | undefined, signal?: AbortSignal): Promise<void> {
  if (action === undefined || action.resolvedBy !== 'host' || action.files.length === 0 || host.resolve === undefined) return;
  const now = await host.resolve({ tool, access: action.access, paths: action.files.map((file) => file.requested) }, signal);
  if (now.files.length !== action.files.length || action.files.some((file, index) => !sameTarget(file, now.files[index] as ResolvedPath))) {
    throw new ToolPolicyError(tool, 'target_changed');
  }
}

function sameTarget(judged: ResolvedPath, now: ResolvedPath): boolean {
  return judged.real === now.real && judged.created === now.created && judged.protected === now.protected && judged.hardLinked === now.hardLinked && judged.identity === now.identity && judged.contentStamp === now.contentStamp;
}
