import type { ResolvedAction, ResolvedPath } from '../action/resolved-action.js';
import { resolveActionLexically } from '../action/resolve-action-lexically.js';
import { ToolPolicyError } from '../errors/tool-errors.js';
import { ToolgateError } from '../errors/toolgate-error.js';
import type { ResolvedTarget } from '../host/tool-host.js';
import { resolvableArguments } from '../policy/argument-paths.js';
import type { PathPlacement, ToolPolicy } from '../policy/policy-types.js';
import type { DispatchState } from './dispatch-state.js';

/**
 * Stage 7, first half: the call's target becomes one resolved action. The
 * spelling is resolved lexically; a host with `resolve` then supplies real
 * paths, link traversal, new files, hard links and the executable, for tools
 * that touch the filesystem or spawn a process, and where each path a
 * command's arguments may name really leads. The policy adds what it
 * protects. What this leaves in `state.action` is what the floor, the rules,
 * the approver, the digest, the receipt and the host all see.
 *
 * Synchronous unless the host answers with a promise; calls without a target
 * pay nothing.
 */
export function resolveAction(state: DispatchState): ToolgateError | undefined | Promise<ToolgateError | undefined> {
  const tool = state.tool;
  const target = state.target;
  if (tool === undefined || target === undefined) return undefined;
  const lexical = resolveActionLexically(target, tool.policyView.policy);
  const { policy } = tool.policyView;
  const host = state.snapshot.host;
  const program = lexical.command?.argv[0];
  const resolve = host.resolve;
  if (resolve === undefined || !(policy.fsScoped || policy.fsWrite || policy.spawnsProcess) || (lexical.files.length === 0 && program === undefined)) {
    state.action = classify(state.snapshot.policy, lexical);
    return undefined;
  }
  const refused = (error: unknown): ToolgateError =>
    error instanceof ToolgateError ? error : new ToolPolicyError(tool.key, 'target_unavailable', { detail: 'was refused: its target could not be resolved', cause: error });
  const argumentsAsked = lexical.command === undefined ? undefined : resolvableArguments(lexical.command.argv, lexical.command.cwd.requested);
  const settle = (answer: ResolvedTarget): ToolgateError | undefined => {
    const merged = mergeHostAnswer(lexical, answer, argumentsAsked);
    if (merged === undefined) return refused(new TypeError('the host resolved a different number of paths than it was given'));
    state.action = classify(state.snapshot.policy, merged);
    return undefined;
  };
  let answer: ResolvedTarget | Promise<ResolvedTarget>;
  try {
    const request = { tool: tool.key, access: lexical.access, paths: lexical.files.map((file) => file.requested), ...(program === undefined ? {} : { program }), ...(argumentsAsked === undefined ? {} : { arguments: argumentsAsked }) };
    answer = resolve(request, state.context.signal);
  } catch (error) {
    return refused(error);
  }
  return answer instanceof Promise ? answer.then(settle, refused) : settle(answer);
}

/**
 * The host's answer laid over the spelling. A command naming more argument
 * paths than a host resolves asks none of them and is marked, so the policy
 * judges it as naming a protected one; a host that answers arguments must
 * answer each of them.
 */
function mergeHostAnswer(lexical: ResolvedAction, answer: ResolvedTarget, argumentsAsked: readonly string[] | undefined): ResolvedAction | undefined {
  if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.files) || answer.files.length !== lexical.files.length) return undefined;
  const resolvedArguments = answer.arguments;
  if (resolvedArguments !== undefined && (!Array.isArray(resolvedArguments) || resolvedArguments.length !== argumentsAsked?.length)) return undefined;
  const files = answer.files;
  const command =
    lexical.command === undefined
      ? undefined
      : {
          ...lexical.command,
          cwd: lexical.files.length > 0 && lexical.command.cwd === lexical.files[0] ? (files[0] as ResolvedPath) : lexical.command.cwd,
          executable: answer.executable,
          ...(resolvedArguments === undefined ? {} : { arguments: resolvedArguments }),
          ...(argumentsAsked === undefined ? { tooManyArguments: true as const } : {}),
        };
  return { ...lexical, resolvedBy: 'host', files, ...(command === undefined ? {} : { command }) };
}

/**
 * The policy's own view of each path, added to what the host said: a path
 * the policy protects (by its spelling or by where it really is) is
 * protected, and without a host the policy says which paths are inside the
 * workspace. Frozen: every later reader sees the same value.
 */
function classify(policy: ToolPolicy, action: ResolvedAction): ResolvedAction {
  const place = policy.classifyPath === undefined ? undefined : (path: string): PathPlacement => (policy.classifyPath as (path: string) => PathPlacement).call(policy, path);
  const judged = (list: readonly ResolvedPath[]): readonly ResolvedPath[] =>
    Object.freeze((place === undefined ? list : list.map((file) => classifyFile(file, action.resolvedBy, place))).map((file) => Object.freeze({ ...file })));
  const files = judged(action.files);
  const cwd = action.command === undefined ? undefined : action.files.length > 0 && action.command.cwd === action.files[0] ? files[0] : action.command.cwd;
  const resolvedArguments = action.command?.arguments;
  const command =
    action.command === undefined
      ? undefined
      : Object.freeze({
          ...action.command,
          argv: Object.freeze([...action.command.argv]),
          cwd: Object.freeze({ ...(cwd as ResolvedPath) }),
          ...(resolvedArguments === undefined ? {} : { arguments: judged(resolvedArguments) }),
        });
  return Object.freeze({ ...action, files, ...(command === undefined ? {} : { command }) });
}

function classifyFile(file: ResolvedPath, resolvedBy: ResolvedAction['resolvedBy'], place: (path: string) => PathPlacement): ResolvedPath {
  const spelled = place(file.requested);
  const real = place(file.real);
  const isProtected = file.protected || spelled.protected || real.protected;
  if (resolvedBy === 'host') return isProtected === file.protected ? file : { ...file, protected: isProtected };
  // Lexically, the policy's workspace roots are the only way to know where an absolute path stands.
  const path = spelled.relative ?? file.path;
  return { ...file, path, real: path, outside: spelled.relative === undefined, protected: isProtected };
}
