import path from 'node:path';
import type { ObjectStoreContent, ResolvedPath, ResolvedTarget, ResolveTargetRequest } from '../../core/internal.js';
import { hostDenial } from '../errors/host-denial.js';
import { resolveExecutable } from '../process/resolve-executable.js';
import { isInside, isUsablePath, resolveInWorkspace, type FsJail } from './fs-jail.js';
import { refuseReserved } from './resolve-jailed-path.js';
import { contentStampOf, walkRealPath, type WalkBudget } from './walk-real-path.js';
import { workspaceMembers } from './workspace-members.js';

export interface CreateResolveTargetOptions {
  readonly jail: FsJail;
  /** Where the process capability looks programs up. */
  readonly systemPath: readonly string[];
  /** Whether a real path is a folder holding a place a protected name links to (`LinkedProtection.holds`): written, it is protected. */
  readonly holdsProtected?: (absolute: string) => boolean;
  /** What the object store of the repository git finds from a folder holds (`createObjectStoreReader`). */
  readonly objectStore?: (folder: string, ids: readonly string[]) => ObjectStoreContent;
}

/**
 * The host's half of the resolved action (`host.resolve`): each path a call
 * names, as it really is on this disk, the executable its program would
 * be, and each path a command's arguments may name, walked the same way (a
 * name that does not exist costs its walk up to the first missing
 * component, and is protected only if its spelling is), and for a git
 * command that can print objects, what its repository's store holds. It reports, it does not refuse — the engine's floor refuses a lexical
 * escape and a link leading out before anyone is asked, and the capability
 * refuses again at execution, where it also re-checks what this returned.
 * Only an unusable path (empty, NUL, a lone surrogate) or a symlink loop is refused here.
 *
 * Synchronous: one `lstat` per component below the workspace, no thread-pool
 * round trip. A path outside the host's scope is never looked at: it is
 * reported as spelled, outside, and refused later.
 *
 * The host's own stores and the embedder's private paths are the exception:
 * no approval can open them, so a call naming one (as spelled or where it
 * really leads) is refused here, before anyone is asked to approve what
 * would be refused anyway.
 */
export function createResolveTarget(options: CreateResolveTargetOptions): (request: ResolveTargetRequest, signal?: AbortSignal) => ResolvedTarget {
  const { jail, systemPath, holdsProtected, objectStore } = options;
  return (request) => {
    // A folder moved or removed carries what a protected name links to off under another name, or puts another in its stead.
    const writes = request.access === 'write';
    const budget: WalkBudget = { characters: MAX_WALK_CHARACTERS };
    const answer: { -readonly [K in keyof ResolvedTarget]: ResolvedTarget[K] } = { files: resolvePaths(jail, request.paths, request.tool, { asSpelled: false, stamped: writes, budget }, writes ? holdsProtected : undefined) };
    const executable = request.program === undefined ? undefined : findExecutable(request.program, systemPath, jail.workspace);
    if (executable !== undefined) answer.executable = executable;
    if (request.arguments !== undefined) {
      const listings = new Set(request.listings ?? []);
      answer.arguments = resolvePaths(jail, request.arguments, request.tool, { asSpelled: true, stamped: true, budget, listings }, undefined);
    }
    if (request.workspaces !== undefined) answer.workspaces = request.workspaces.map((file) => workspaceMembers(jail, file, request.tool, budget));
    if (request.repository !== undefined && objectStore !== undefined) answer.objectStore = objectStore(path.resolve(jail.workspace, request.repository), request.objectIds ?? []);
    return answer;
  };
}

/**
 * The characters the walks of one call's paths may hand to `lstat`
 * (`WalkBudget`), some 40 ms of the gateway's thread: a call of 64 paths ten
 * folders deep spends a twentieth of it.
 */
const MAX_WALK_CHARACTERS = 1_000_000;

/** How a list of paths is walked: as spelled (a command's arguments), with content stamps, within one call's budget. */
interface WalkWay {
  readonly asSpelled: boolean;
  readonly stamped: boolean;
  readonly budget: WalkBudget;
  /** The indexes of folders among them stamped as a file is (`ResolveTargetRequest.listings`): a name added or removed there changes it. */
  readonly listings?: ReadonlySet<number>;
}

/**
 * Each path of a list as it really is, in order (a loop: this runs on every governed call). `holds` says whether a
 * real path is a folder holding a place a protected name links to: one such path is protected too (a write there moves it).
 * `stamped`: an existing regular file among them carries its content stamp (a command's arguments, a write's targets).
 */
function resolvePaths(jail: FsJail, paths: readonly string[], tool: string, how: WalkWay, holds: ((absolute: string) => boolean) | undefined): ResolvedPath[] {
  const resolved: ResolvedPath[] = [];
  paths.forEach((requested, index) => resolved.push(resolvePath(jail, requested, tool, how, holds, how.listings?.has(index) === true)));
  return resolved;
}

/**
 * One path as it really is. A file target is opened at its folded spelling
 * (`a/../b` is `b`), so that is what is walked. A command's argument with a
 * `..` is walked as spelled (`asSpelled`), wherever its folded spelling
 * points: the program hands it to the kernel unfolded.
 */
function resolvePath(jail: FsJail, requested: string, tool: string, how: WalkWay, holds: ((absolute: string) => boolean) | undefined, listing = false): ResolvedPath {
  const { asSpelled, stamped, budget } = how;
  if (typeof requested !== 'string' || !isUsablePath(requested)) throw hostDenial(tool, 'invalid_path');
  const lexical = resolveInWorkspace(jail.workspace, requested);
  const shown = jail.display(lexical);
  const spelled = jail.classify(lexical);
  refuseReserved(spelled, tool);
  const spelledWalk = asSpelled && requested.split(/[\\/]/).includes('..');
  if (!spelledWalk && !isInside(jail.root, lexical)) {
    return { requested, path: shown, real: shown, protected: spelled !== 'open' || holds?.(lexical) === true, linkTraversal: false, outside: !isInside(jail.workspace, lexical), created: false, hardLinked: false };
  }
  const walk = walkRealPath(jail.workspace, spelledWalk ? (path.isAbsolute(requested) ? requested : `${jail.workspace}${path.sep}${requested}`) : lexical, tool, budget);
  // The real path is classified only where a link moved it: the same string is never classified twice.
  const found = walk.absolute === lexical ? spelled : jail.classify(walk.absolute);
  refuseReserved(found, tool);
  const resolved: { -readonly [K in keyof ResolvedPath]: ResolvedPath[K] } = {
    requested,
    path: shown,
    real: walk.absolute === lexical ? shown : jail.display(walk.absolute),
    protected: spelled !== 'open' || found !== 'open' || holds?.(walk.absolute) === true || (holds !== undefined && walk.linkTraversal && holds(entryOf(jail, lexical, tool, budget))),
    linkTraversal: walk.linkTraversal,
    outside: !isInside(jail.workspace, walk.absolute),
    created: walk.missing.length > 0,
    hardLinked: walk.missing.length === 0 && !walk.stats.isDirectory() && walk.stats.nlink > 1,
    identity: walk.identity,
  };
  // A command's argument may be the code it runs (`sh run.sh`): what the file holds is part of what was judged. So is
  // what a write replaces or edits: its card draws the diff against it, and an edit's result is made from it.
  if (stamped && walk.missing.length === 0 && (walk.stats.isFile() || (listing && walk.stats.isDirectory()))) resolved.contentStamp = contentStampOf(walk.stats);
  return resolved;
}

/**
 * The entry a move or removal of `lexical` takes away: its last name in the
 * real folder that holds it, the link itself when it is one (a rename does
 * not follow its last name). A link on the way to a protected place
 * (`cfg`, with `.env` a link to `cfg/../dev.secrets`) moved, the protected
 * name leads elsewhere, or nowhere.
 */
function entryOf(jail: FsJail, lexical: string, tool: string, budget: WalkBudget): string {
  const folder = path.dirname(lexical);
  return path.join(folder === lexical ? folder : walkRealPath(jail.workspace, folder, tool, budget).absolute, path.basename(lexical));
}

/** The executable the process capability would run, or undefined when it would refuse (spawn then fails as it always has). */
function findExecutable(program: string, systemPath: readonly string[], workspace: string): string | undefined {
  try {
    return resolveExecutable(program, systemPath, workspace, undefined);
  } catch {
    return undefined;
  }
}
