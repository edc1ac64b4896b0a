import type { ResolvedCommand } from '../action/resolved-action.js';
import { argumentPaths } from './argument-paths.js';
import { readsProtectedObjects } from './git-object-reads.js';
import type { GuardrailView } from './check-guardrails.js';
import type { NormalizedPath } from './normalize-path.js';
import type { ArgumentPolicyInput } from './policy-types.js';
import type { ProtectedPathMatcher } from './protected-paths.js';

/** The protected-path matchers of one snapshot, and the workspace roots paths are read against. */
export interface ProtectedPathRules {
  readonly isProtected: ProtectedPathMatcher;
  /** The protected paths `readableProtectedPaths` lets be read without asking. */
  readonly isReadable: (path: NormalizedPath) => boolean;
  readonly roots: readonly string[];
}

/**
 * Whether a call reaches a protected path, as spelled or where it really is
 * (`view.paths` holds both): a write always asks; a read or a command's
 * working directory asks unless every protected path it touches is one
 * `readableProtectedPaths` lets be read. A path only the host protects (its
 * own state) is never exempt, nor is a file with more than one hard link:
 * it may be another name of a protected file, and no lookup by name finds
 * the others. A command that names a protected path in its arguments asks
 * too, exempt or not: nothing says whether the program reads or writes it,
 * and so does one whose arguments reach a protected file by another name,
 * and a git command that prints what the object store holds of one
 * (`readsProtectedObjects`): the sandbox masks the file, not its blob.
 */
export function touchesProtected(input: ArgumentPolicyInput, view: GuardrailView, rules: ProtectedPathRules): boolean {
  const { isProtected, isReadable, roots } = rules;
  const { policy } = input.tool;
  if (!policy.fsWrite && !policy.fsScoped && !policy.spawnsProcess) return false;
  if (policy.spawnsProcess && view.argv !== undefined && (argumentPaths(view.argv, input.action?.command?.cwd.path ?? '.', roots).some(isProtected) || argumentsReachProtected(input.action?.command))) return true;
  if (policy.spawnsProcess && view.argv !== undefined && readsProtectedObjects(view.argv, input.action?.command?.objectStore)) return true;
  const protectedPaths = view.paths.filter(isProtected);
  const hostOnly = input.action?.files.some((file) => file.hardLinked || (file.protected && protectedPaths.length === 0)) === true;
  if (protectedPaths.length === 0 && !hostOnly) return false;
  return policy.fsWrite || hostOnly || !protectedPaths.every(isReadable);
}

/**
 * Whether a command's arguments reach a protected file by another name, as
 * the host resolved them: a link whose real path is protected, or a file
 * with several hard links. A command naming more paths than the host
 * resolves is judged as reaching one.
 */
function argumentsReachProtected(command: ResolvedCommand | undefined): boolean {
  if (command === undefined) return false;
  return command.tooManyArguments === true || command.arguments?.some((path) => path.protected || path.hardLinked) === true;
}
