import type { ResolvedAction, ResolvedCommand, ResolvedPath, WorkspaceMembers } from '../action/resolved-action.js';
import { accessOf, actionAround, commandArgv, commandCwdSpelling, lexicalPath, targetPaths } from '../action/resolve-action-lexically.js';
import { ToolPolicyError } from '../errors/tool-errors.js';
import { ToolgateError } from '../errors/toolgate-error.js';
import type { ResolvedTarget, ResolveTargetRequest } from '../host/tool-host.js';
import { MAX_RESOLVED_ARGUMENTS, resolvableArguments, runnerFolders, runnerWorkspaces } from '../policy/argument-paths.js';
import { gitObjectReader, gitRepositoryFolder } from '../policy/git-object-reads.js';
import type { PathPlacement, ToolPolicy } from '../policy/policy-types.js';
import { realDepth, runnerCode } from '../policy/runner-code.js';
import type { DispatchState } from './dispatch-state.js';

type Writable<T> = { -readonly [K in keyof T]: T[K] };
type Place = (path: string) => PathPlacement;

/**
 * Stage 7, first half: the call's target becomes one resolved action. A
 * host with `resolve` supplies real paths, link traversal, new files, hard
 * links and the executable, for tools that touch the filesystem or spawn a
 * process, and where each path a command's arguments may name really leads;
 * otherwise the spelling is resolved lexically. The policy adds what it
 * protects. What this leaves in `state.action` is what the floor, the rules,
 * the approver, the digest, the receipt and the host all see.
 *
 * A command whose runner climbs (`npm test` in a folder with no
 * `package.json`) asks the host twice: first where each folder the runner
 * climbs from really is, which sets how many folders above it are bound
 * (`runnerCode`), then the rest, those folders again among them. One that
 * selects workspace members (`npm test --workspaces`) asks, before the rest,
 * which members the files naming them name (`RunnerCode.roots`): their
 * `package.json` and the folders their globs listed are bound with the rest.
 *
 * Synchronous unless the host answers with a promise; calls without a target
 * pay nothing.
 */
export function resolveAction(state: DispatchState): ToolgateError | undefined | Promise<ToolgateError | undefined> {
  const tool = state.tool;
  const target = state.target;
  if (tool === undefined || target === undefined) return undefined;
  const { policy } = tool.policyView;
  const requested = targetPaths(target);
  const argv = commandArgv(target);
  const program = argv?.[0];
  const place = placeOf(state.snapshot.policy);
  const resolve = state.snapshot.host.resolve;
  if (resolve === undefined || !(policy.fsScoped || policy.fsWrite || policy.spawnsProcess) || (requested.length === 0 && program === undefined)) {
    state.action = judgedAction(actionAround(target, policy, requested.map(lexicalPath), argv), undefined, undefined, place);
    return undefined;
  }
  const refused = (error: unknown): ToolgateError =>
    error instanceof ToolgateError ? error : new ToolPolicyError(tool.key, 'target_unavailable', { detail: 'was refused: its target could not be resolved', cause: error });
  const cwd = commandCwdSpelling(target);
  type Settled = ToolgateError | undefined | Promise<ToolgateError | undefined>;
  const ask = (request: ResolveTargetRequest, then: (answer: ResolvedTarget) => Settled): Settled => {
    let answer: ResolvedTarget | Promise<ResolvedTarget>;
    try {
      answer = resolve(request, state.context.signal);
    } catch (error) {
      return refused(error);
    }
    return answer instanceof Promise ? answer.then(then, refused) : then(answer);
  };
  const malformed = (): ToolgateError => refused(new TypeError('the host did not answer one path object for each path it was given'));
  const resolveWith = (climbs: readonly number[] | undefined, members: readonly WorkspaceMembers[] | undefined): Settled => {
    const argumentsAsked = argv === undefined ? undefined : resolvableArguments(argv, cwd, climbs, members);
    const reader = argv === undefined ? undefined : gitObjectReader(argv);
    const repository = reader === undefined ? undefined : gitRepositoryFolder(reader.argv, cwd);
    const objectIds = repository === undefined ? undefined : reader?.ids;
    // Counted before the host sees the lists: what it answers is checked against what it was asked, even by a host that changed them.
    const pathsAsked = requested.length;
    const argumentPathsAsked = argumentsAsked?.length;
    const settle = (answer: ResolvedTarget): ToolgateError | undefined => {
      if (!fitsRequest(pathsAsked, answer, argumentPathsAsked)) return malformed();
      if (!sameClimbs(answer, argv, cwd, { climbs, members })) return refused(new TypeError('a folder a runner climbs from moved while it was resolved'));
      try {
        state.action = judgedAction(actionAround(target, policy, answer.files, argv), answer, argumentsAsked, place, { climbs, members });
      } catch (error) {
        // A policy whose classification throws fails the call closed, as a host that cannot resolve does.
        return refused(error);
      }
      return undefined;
    };
    const request = resolveRequest(tool.key, accessOf(policy), requested, program, argumentsAsked, repository, objectIds);
    const listings = argv === undefined || argumentsAsked === undefined ? [] : listingIndexes(argv, cwd, climbs, members, argumentsAsked.length);
    return ask(listings.length === 0 ? request : { ...request, listings }, settle);
  };
  // A runner selecting workspace members runs the code of each member its workspace names: which they are is asked.
  const withMembers = (climbs: readonly number[] | undefined): Settled => {
    const roots = argv === undefined ? [] : runnerWorkspaces(argv, cwd, climbs);
    if (roots.length === 0 || argv === undefined) return resolveWith(climbs, undefined);
    const room = MAX_RESOLVED_ARGUMENTS - (resolvableArguments(argv, cwd, climbs)?.length ?? MAX_RESOLVED_ARGUMENTS);
    return ask({ tool: tool.key, access: 'read', paths: [], workspaces: roots }, (answer) => {
      if (!isObject(answer)) return malformed();
      const found: unknown = answer.workspaces;
      if (found === undefined) return resolveWith(climbs, undefined);
      if (!Array.isArray(found) || found.length !== roots.length || !found.every(isWorkspaceMembers)) return malformed();
      return resolveWith(climbs, fittedMembers(found, room));
    });
  };
  // A runner that climbs (npm in a folder with no package.json) climbs the real folders above the one it runs in, however
  // it is spelled: where that folder really is, and so how many `..` reach the workspace root, is asked first.
  const folders = argv === undefined ? [] : runnerFolders(argv, cwd);
  const foldersAsked = folders.length;
  if (foldersAsked === 0) return withMembers(undefined);
  return ask({ tool: tool.key, access: 'read', paths: [], arguments: folders }, (answer) => {
    if (!isObject(answer)) return malformed();
    const found = answer.arguments;
    if (found === undefined) return withMembers(undefined);
    if (!Array.isArray(found) || found.length !== foldersAsked || !found.every(hasReal)) return malformed();
    return withMembers(found.map((folder) => realDepth(folder.real)));
  });
}

/**
 * Where among the `count` arguments asked the folders a workspace's globs
 * listed stand (`resolvableArguments`): just before the folders the runners
 * climb from, which stand just before the runners' files.
 */
function listingIndexes(argv: readonly string[], cwd: string, climbs: readonly number[] | undefined, members: readonly WorkspaceMembers[] | undefined, count: number): number[] {
  const code = runnerCode(argv, cwd, climbs, members);
  const listings = code?.listings?.length ?? 0;
  const start = count - (code?.files.length ?? 0) - (climbs?.length ?? 0) - listings;
  return Array.from({ length: listings }, (_, index) => start + index);
}

function isWorkspaceMembers(value: unknown): value is WorkspaceMembers {
  const strings = (list: unknown): boolean => Array.isArray(list) && list.every((entry) => typeof entry === 'string' && entry !== '' && !entry.includes('\0'));
  return isObject(value) && strings((value as WorkspaceMembers).members) && strings((value as WorkspaceMembers).listed);
}

/**
 * The host's members, copied and frozen (its own objects are never kept),
 * as many listings and members as `room` more arguments hold, in order; the
 * rest cut, so the card says members are unbound rather than the command
 * naming more paths than are resolved.
 */
function fittedMembers(found: readonly WorkspaceMembers[], room: number): readonly WorkspaceMembers[] {
  let left = Math.max(0, room);
  const take = (list: readonly string[]): string[] => {
    const taken = list.slice(0, left);
    left -= taken.length;
    return taken;
  };
  return Object.freeze(
    found.map((members) => {
      const listed = take(members.listed);
      const kept = take(members.members);
      const cut = members.cut === true || listed.length < members.listed.length || kept.length < members.members.length;
      return Object.freeze({ members: Object.freeze(kept), listed: Object.freeze(listed), ...(cut ? { cut: true } : {}) });
    }),
  );
}

/**
 * Whether the folders the runners climb from, resolved again beside the
 * files the climb binds, are as deep as the climb was counted from: a link
 * re-pointed between the two answers would leave the climb short of the
 * workspace root. They stand just before the runner's files.
 */
function sameClimbs(answer: ResolvedTarget, argv: readonly string[] | undefined, cwd: string, runner: RunnerFound): boolean {
  const { climbs, members } = runner;
  if (argv === undefined || climbs === undefined || answer.arguments === undefined) return true;
  const files = runnerCode(argv, cwd, climbs, members)?.files.length ?? 0;
  const folders = answer.arguments.slice(answer.arguments.length - files - climbs.length, answer.arguments.length - files);
  return folders.length === climbs.length && folders.every((folder, index) => hasReal(folder) && realDepth(folder.real) === climbs[index]);
}

/** What the host found of a command's runners before its arguments were asked: how deep each climbs from, its workspaces' members. */
interface RunnerFound {
  readonly climbs: readonly number[] | undefined;
  readonly members: readonly WorkspaceMembers[] | undefined;
}

function hasReal(value: unknown): value is ResolvedPath {
  return isObject(value) && typeof (value as { real?: unknown }).real === 'string';
}

/** The policy's own classifier, bound to it; undefined when the policy has none. */
function placeOf(policy: ToolPolicy): Place | undefined {
  return policy.classifyPath === undefined ? undefined : (path) => (policy.classifyPath as Place).call(policy, path);
}

/** What the host is asked: the spelled paths, and the program, argument paths and git repository of a command. */
function resolveRequest(
  tool: string,
  access: ResolveTargetRequest['access'],
  paths: readonly string[],
  program: string | undefined,
  argumentsAsked: readonly string[] | undefined,
  repository: string | undefined,
  objectIds: readonly string[] | undefined,
): ResolveTargetRequest {
  const request: Writable<ResolveTargetRequest> = { tool, access, paths };
  if (program !== undefined) request.program = program;
  if (argumentsAsked !== undefined) request.arguments = argumentsAsked;
  if (repository !== undefined) request.repository = repository;
  if (objectIds !== undefined) request.objectIds = objectIds;
  return request;
}

/** An answer with one path per path asked, and, when it answers arguments, one per argument asked; every path an object. */
function fitsRequest(pathsAsked: number, answer: ResolvedTarget, argumentPathsAsked: number | undefined): boolean {
  if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.files) || answer.files.length !== pathsAsked || !answer.files.every(isObject)) return false;
  const resolvedArguments = answer.arguments;
  return resolvedArguments === undefined || (Array.isArray(resolvedArguments) && resolvedArguments.length === argumentPathsAsked && resolvedArguments.every(isObject));
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/**
 * The action every later stage reads, built and frozen in one pass from
 * the target's frame: each path copied once with what the policy protects
 * added, the host's executable and argument paths when it answered. Frozen:
 * every later reader sees the same value, and the host's own objects are
 * never frozen or kept.
 */
function judgedAction(
  frame: ResolvedAction,
  answer: ResolvedTarget | undefined,
  argumentsAsked: readonly string[] | undefined,
  place: Place | undefined,
  runner?: RunnerFound,
): ResolvedAction {
  const resolvedBy = answer === undefined ? 'lexical' : 'host';
  const files = judgedPaths(frame.files, resolvedBy, place);
  const action: Writable<ResolvedAction> = { resolvedBy, access: frame.access, files };
  if (frame.command !== undefined) action.command = judgedCommand(frame.command, frame.files, files, answer, argumentsAsked, place, runner);
  if (frame.http !== undefined) action.http = frame.http;
  if (frame.mcp !== undefined) action.mcp = frame.mcp;
  if (frame.os !== undefined) action.os = frame.os;
  if (frame.search !== undefined) action.search = frame.search;
  return Object.freeze(action);
}

/**
 * A command's working directory is its first file target when it names one
 * (then as judged there), else the workspace root as spelled. A command
 * naming more argument paths than a host resolves asks none of them and is
 * marked, so the policy judges it as naming a protected one.
 */
function judgedCommand(
  frame: ResolvedCommand,
  frameFiles: readonly ResolvedPath[],
  files: readonly ResolvedPath[],
  answer: ResolvedTarget | undefined,
  argumentsAsked: readonly string[] | undefined,
  place: Place | undefined,
  runner: RunnerFound | undefined,
): ResolvedCommand {
  const cwdIsTarget = frameFiles.length > 0 && frame.cwd === frameFiles[0];
  // The argv is this call's own array, frozen as it was split.
  const command: Writable<ResolvedCommand> = {
    argv: frame.argv,
    executable: answer === undefined ? frame.executable : answer.executable,
    cwd: cwdIsTarget ? (files[0] as ResolvedPath) : frozenPath(frame.cwd, frame.cwd.path, frame.cwd.real, frame.cwd.outside, frame.cwd.protected),
  };
  if (answer?.arguments !== undefined) command.arguments = judgedPaths(answer.arguments, 'host', place);
  if (answer !== undefined && argumentsAsked === undefined) command.tooManyArguments = true;
  if (runner?.climbs !== undefined) command.runnerClimbs = Object.freeze([...runner.climbs]);
  if (runner?.members !== undefined) command.runnerMembers = runner.members;
  const store = answer?.objectStore;
  // Booleans, copied: the host's own object is never kept.
  if (typeof store === 'object' && store !== null) {
    command.objectStore = Object.freeze({ protectedNames: store.protectedNames === true, unreachable: store.unreachable === true, namesUnreachable: store.namesUnreachable === true });
  }
  return Object.freeze(command);
}

function judgedPaths(list: readonly ResolvedPath[], resolvedBy: ResolvedAction['resolvedBy'], place: Place | undefined): readonly ResolvedPath[] {
  return Object.freeze(list.map((file) => judgedPath(file, resolvedBy, place)));
}

/**
 * The policy's own view of one path, added to what the host said: a path
 * the policy protects (by its spelling or by where it really is) is
 * protected, and without a host the policy says which paths are inside the
 * workspace. A path the host already protects has nothing to add, and a
 * real path spelled as asked is classified once.
 */
function judgedPath(file: ResolvedPath, resolvedBy: ResolvedAction['resolvedBy'], place: Place | undefined): ResolvedPath {
  if (place === undefined || (resolvedBy === 'host' && file.protected)) return frozenPath(file, file.path, file.real, file.outside, file.protected);
  const spelled = place(file.requested);
  const isProtected = file.protected || spelled.protected || (file.real !== file.requested && place(file.real).protected);
  if (resolvedBy === 'host') return frozenPath(file, file.path, file.real, file.outside, isProtected);
  // Lexically, the policy's workspace roots are the only way to know where an absolute path stands.
  const path = spelled.relative ?? file.path;
  return frozenPath(file, path, path, spelled.relative === undefined, isProtected);
}

/**
 * A frozen copy of a path with its placement. Built as one literal: freezing
 * a spread copy costs V8 several times more than the copy itself.
 */
function frozenPath(file: ResolvedPath, path: string, real: string, outside: boolean, isProtected: boolean): ResolvedPath {
  const copy: Writable<ResolvedPath> = {
    requested: file.requested,
    path,
    real,
    protected: isProtected,
    linkTraversal: file.linkTraversal,
    outside,
    created: file.created,
    hardLinked: file.hardLinked,
  };
  if (file.identity !== undefined) copy.identity = file.identity;
  if (file.contentStamp !== undefined) copy.contentStamp = file.contentStamp;
  return Object.freeze(copy);
}
