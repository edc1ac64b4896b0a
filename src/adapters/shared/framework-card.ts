import type { InvocationPlan, ResolvedAction, ResolvedPath } from '../../core/internal.js';

/**
 * Whether a framework's own approval card can stand for this call. That
 * card (the AI SDK's tool-approval-request, an OpenAI Agents interruption)
 * shows the model's arguments and nothing else. When the resolved action
 * holds what the arguments do not say — a path reached through a link, a
 * file with other hard links, a protected path, a command naming more paths
 * than the host resolves — a person approving `docs/notes.md` there would
 * approve a write to `.git/config`, or a read of `.env`, unseen. Such a call
 * is left to toolgate's own card (the application's `approval.confirm`,
 * which gets the real targets and their flags), or denied. A plan with no
 * resolved action (nothing the policy targets) shows all it does.
 */
export function frameworkCardShows(plan: Pick<InvocationPlan, 'resolved'>): boolean {
  const resolved = plan.resolved;
  return resolved === undefined || !hidesTargets(resolved);
}

function hidesTargets(action: ResolvedAction): boolean {
  const command = action.command;
  if (command !== undefined && (command.tooManyArguments === true || hidden(command.cwd) || (command.arguments ?? []).some(hidden))) return true;
  return action.files.some(hidden);
}

function hidden(path: ResolvedPath): boolean {
  return path.protected || path.linkTraversal || path.hardLinked;
}
