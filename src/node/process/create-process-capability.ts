import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { MovedRepository, ProcessCapability, ProcessResult, ResolvedCommand, ResolvedPath } from '../../core/internal.js';
import { hostDenial, hostUnavailable } from '../errors/host-denial.js';
import type { FsJail } from '../fs/fs-jail.js';
import { openVerifiedDirectory } from '../fs/open-verified.js';
import { openAsResolved, refuseNonFolder, resolveJailedPath, sameTarget } from '../fs/resolve-jailed-path.js';
import { createResolveTarget } from '../fs/resolve-target.js';
import type { SandboxMode } from '../node-host-types.js';
import { buildBwrapArgs, detectBwrap, SANDBOX_FILTER } from './bwrap-sandbox.js';
import { buildChildEnv, gitHardeningEnv, withGitConfig } from './build-child-env.js';
import type { LinkedProtection } from '../fs/linked-protection.js';
import { createProtectedFileFinder, type FoundProtectedFiles, type MaskWalkLimit, type ProtectedFiles } from './find-protected-files.js';
import { createProtectedCreationGuard, type ProtectedCheck } from './move-protected-aside.js';
import { findProgram } from './find-program.js';
import { findRepositoryCode } from './find-repository-code.js';
import { findProtectedLinks } from './find-protected-links.js';
import { createLinkKeeper, keptLinkFolders } from './keep-protected-links.js';
import { createNestedRepositoryGuard, type NestedRepositoriesCheck, type NestedRepositoryGuard } from './guard-nested-repositories.js';
import { createRepositoryHolder, UnheldRepositoryError, type EnteredRepositories, type HeldFor, type RepositoriesCheck, type RepositoryHolder } from './hold-repositories.js';
import type { PathLocks } from '../fs/path-locks.js';
import { repositoryGitOverrides, type RepositoryOverridesOptions } from './repository-git-overrides.js';
import { resolveExecutable } from './resolve-executable.js';
import { spawnBounded, type BoundedResult } from './spawn-bounded.js';

export interface CreateProcessCapabilityOptions {
  readonly jail: FsJail;
  readonly sandbox: SandboxMode;
  readonly systemPath: readonly string[];
  readonly env: { readonly allow: readonly string[]; readonly set: Readonly<Record<string, string>> };
  /** Host paths masked inside the sandbox, besides the protected files found in the workspace at each spawn. */
  readonly hidden: readonly { readonly path: string }[];
  /** How much of the workspace each sandboxed spawn may walk to find its protected files (see `findProtectedFiles`). */
  readonly maskWalkLimit?: MaskWalkLimit;
  /** The host user's home, `HOME` for children. */
  readonly home: string;
  /** Protected files the policy lets be read (`readableProtectedPaths`): left unmasked. */
  readonly isReadableProtected?: (absolute: string) => boolean;
  /** Told what every whole walk of the workspace found, and given the walk to make before the file tools' first question. */
  readonly linked?: LinkedProtection;
  readonly defaultTimeoutMs?: number;
  readonly defaultMaxOutputBytes?: number;
  readonly killGraceMs?: number;
  /** The host's external-diff shim (see `gitHardeningEnv`). */
  readonly gitExternalDiff: string;
  /** Shared with the host's file writes: a command's argument files are held while it starts (`createPathLocks`). */
  readonly locks: PathLocks;
}

/**
 * How long a command's argument files stay held once its program is
 * spawned, unless it ends sooner: time for the program (an interpreter, its
 * script named in the argv) to start and open them.
 */
const START_HOLD_MS = 2000;

export interface NodeProcessCapability extends ProcessCapability {
  /** `bwrap` when children run sandboxed, `none` otherwise; probed once. */
  sandboxStatus(): Promise<'bwrap' | 'none'>;
  /**
   * Run a write that makes no repository (a file tool's; an upstream MCP
   * call, whose path arguments the policy judged, a `.git` among what it
   * protects) held to the nested repositories as a command is, those the
   * last walk found (the first time, walked), or in a workspace the walk
   * cannot see whole those in the folders around `held.target`. A
   * repository the write left holding code it did not hold (a hook or a
   * setting written into a git folder a link leads to, or into a hooks
   * folder or an include its configuration names) is moved aside, and the
   * call fails, saying so.
   */
  holdingRepositories<T>(tool: string | undefined, held: HeldWrite, write: () => Promise<T>): Promise<T>;
}

/** What a write held to the nested repositories is: a file tool's, of `target`, or an upstream call's. */
export type HeldWrite = { readonly capability: 'fs'; readonly target: string } | { readonly capability: 'mcp' };

/**
 * Spawn policy-checked commands: executable from the fixed system PATH, cwd
 * jailed, environment rebuilt from scratch, time and output bounded, the
 * whole process group killed on timeout or abort, and bwrap around it when
 * it can run. A cancel that lands while the executable is being resolved
 * refuses entry: nothing is spawned. A command resolved before policy and
 * approval (`expected`) runs only as it was judged: another argv, another
 * executable, another working directory, or an argument path that now leads
 * elsewhere (a link swapped in, a file replaced) is `target_changed`.
 *
 * Inside bwrap, every protected file the workspace holds at that moment is
 * masked, whatever the command does: `grep -r`, `tar` or `cp -r` of the
 * workspace read protected files as empty. A workspace too large to walk
 * within `maskWalkLimit` fails the spawn rather than run it unmasked. In a
 * writing tier the workspace is walked again after the command: a
 * protected entry it made where there was none is moved aside
 * (`movedProtectedPaths`).
 */
export function createProcessCapability(options: CreateProcessCapabilityOptions): NodeProcessCapability {
  const { jail } = options;
  const gitHardening = gitHardeningEnv(options.gitExternalDiff);
  const resolveTarget = createResolveTarget({ jail, systemPath: options.systemPath });
  const walkWorkspace = createProtectedFileFinder(jail, options.isReadableProtected);
  // Every walk that sees the whole workspace tells the file tools where its protected links lead.
  const findProtectedFiles = (limit?: MaskWalkLimit): ProtectedFiles => {
    const linked = options.linked;
    if (linked === undefined) return walkWorkspace(limit);
    const found = linked.walking(() => walkWorkspace(limit));
    // A walk past its bound (a link that leads out to a large tree) still learns the links, found without following any;
    // and past that bound too (a large node_modules), the repository's code git names (husky's `.husky`), which no walk finds.
    const links = found.kind === 'found' ? found.paths : linked.walking(() => findProtectedLinks(jail, options.isReadableProtected ?? (() => false), limit));
    linked.learn(links ?? []);
    return found;
  };
  options.linked?.walkFirstWith(() => findProtectedFiles(options.maskWalkLimit));
  const protectedCreation = createProtectedCreationGuard(jail, options.isReadableProtected);
  const linkKeeper = createLinkKeeper(jail.workspace);
  let bwrap: Promise<string | undefined> | undefined;
  const findBwrap = (): Promise<string | undefined> => (bwrap ??= options.sandbox === 'off' ? Promise.resolve(undefined) : detectBwrap(options.systemPath));
  let guards: { readonly holder: RepositoryHolder; readonly nested: NestedRepositoryGuard } | undefined;
  /** Whether the walk a file write made, before any command walked, could not see the whole workspace: not walked again for each write. */
  let unwalkable = false;
  const repositoryGuards = (): typeof guards => {
    if (guards !== undefined) return guards;
    const git = findProgram('git', options.systemPath);
    if (git === undefined) return undefined; // no git here to list submodules with, nor for the user to enter them
    const env = buildChildEnv({ systemPath: options.systemPath, home: options.home, set: {}, allow: [], declared: {}, tool: undefined, gitHardening });
    return (guards = { holder: createRepositoryHolder({ workspace: jail.workspace, git, env }), nested: createNestedRepositoryGuard({ workspace: jail.workspace, git, env }) });
  };
  return {
    async sandboxStatus() {
      return (await findBwrap()) === undefined ? 'none' : 'bwrap';
    },
    async holdingRepositories<T>(tool: string | undefined, held: HeldWrite, write: () => Promise<T>): Promise<T> {
      const nested = jail.scope === 'read-only' ? undefined : repositoryGuards()?.nested;
      if (nested === undefined) return write();
      // A file write makes no repository (a `.git` is protected): those the last walk found are read again, the first time walked.
      // A workspace past the walk's limit, whose commands are refused, holds a write to the repositories around its file.
      let entries = nested.known;
      if (entries === undefined && !unwalkable) {
        entries = walkedRepositories(findProtectedFiles(options.maskWalkLimit));
        if (entries === undefined) unwalkable = true;
        else nested.learn(entries);
      }
      entries ??= held.capability === 'fs' ? repositoriesAround(jail.workspace, held.target) : [];
      await nested.enter(entries);
      let written: { readonly value: T } | undefined;
      try {
        written = { value: await write() };
      } finally {
        const done = held.capability === 'fs' ? 'the file was written' : 'the call ran';
        const moved = repositoriesMovedAside(await nested.leave(entries, true), tool, held.capability, done);
        // eslint-disable-next-line no-unsafe-finally -- the write succeeded; what it did to a repository is the call's answer.
        if (written !== undefined && moved.length > 0) throw movedAsideError(tool, held.capability, done, moved);
      }
      return written.value;
    },
    async spawn(command, args, declaredEnv, spawnOptions, signal): Promise<ProcessResult> {
      const tool = spawnOptions.tool;
      signal?.throwIfAborted();
      if (args.some((arg) => arg.includes('\0'))) throw hostDenial(tool, 'invalid_path');
      const file = resolveExecutable(command, options.systemPath, jail.workspace, tool);
      const expected = spawnOptions.expected;
      if (expected !== undefined && !sameCommand(expected, file, command, args)) throw hostDenial(tool, 'target_changed');
      // Held from their check until the program has started and read them: a write landing between the two (a model's
      // edit sent beside the call) would otherwise run bytes nobody approved. A write in progress is waited for first.
      const release = await options.locks.acquire(heldArguments(jail, expected?.arguments));
      let hold: ReturnType<typeof setTimeout> | undefined;
      try {
        if (expected?.arguments !== undefined && !sameArguments(expected.arguments, resolveTarget, tool)) throw hostDenial(tool, 'target_changed');
        const cwd = await resolveCwd(jail, spawnOptions.cwd, tool, expected?.cwd);
        const baseEnv = buildChildEnv({ systemPath: options.systemPath, home: options.home, set: options.env.set, allow: options.env.allow, declared: declaredEnv, tool, gitHardening });
        const env = path.basename(file) === 'git' ? await hardenForRepository({ file, args, cwd, env: baseEnv, externalDiff: options.gitExternalDiff, signal, tool }, tool) : baseEnv;
        const sandbox = await findBwrap();
        if (sandbox === undefined && options.sandbox === 'required') {
          throw hostUnavailable(tool, 'process', 'the required OS sandbox (bwrap) is not installed or cannot create namespaces here');
        }
        const walked = sandbox === undefined ? undefined : workspaceWalked(findProtectedFiles(options.maskWalkLimit), tool);
        // What the protected links led to as the gateway learned them: masked whatever a command beside this one made of them.
        const learned = options.linked?.maskedPlaces() ?? [];
        const hidden = walked === undefined ? [] : [...options.hidden, ...[...walked.paths, ...learned].map((entry) => ({ path: entry }))];
        // Re-check at the native spawn: a cancel during resolution must not start the child.
        signal?.throwIfAborted();
        // toolgate's own hardened git runs none of the repositories' code and writes their configuration, as the git rules
        // judge: it is held to their indexes, to what git never writes and to the work tree's code. Anything else,
        // sandboxed, to all of their code.
        const heldFor: HeldFor = sandbox === undefined ? 'nothing' : path.basename(file) === 'git' ? 'git' : 'program';
        const writing = jail.scope !== 'read-only';
        const nested = writing && walked !== undefined ? repositoryGuards()?.nested : undefined;
        if (nested !== undefined && walked !== undefined) {
          nested.learn(walked.repositories);
          await nested.enter(walked.repositories);
        }
        const holder = writing ? repositoryGuards()?.holder : undefined;
        let result: BoundedResult;
        let check: RepositoriesCheck | undefined;
        let nestedCheck: NestedRepositoriesCheck | undefined;
        let entered: EnteredRepositories | undefined;
        let protectedCheck: ProtectedCheck | undefined;
        try {
          entered = writing ? await enterRepositories(holder, jail.workspace, heldFor, tool) : undefined;
        } catch (error) {
          // Not run: nothing to check, but the guard is told the operation ended.
          if (walked !== undefined) await nested?.leave(walked.repositories, true);
          throw error;
        }
        const protectedBefore = writing && walked !== undefined ? protectedCreation.enter(walked) : undefined;
        const linksBefore = writing && walked !== undefined ? linkKeeper.enter(walked) : undefined;
        let linksProblem: string | undefined;
        try {
          const spawned =
            sandbox === undefined
              ? { file, args }
              : {
                  file: sandbox,
                  args: buildBwrapArgs({ workspace: jail.workspace, scope: jail.scope, cwd, env, hidden, readOnly: [path.dirname(options.gitExternalDiff)], repository: entered?.code, pinned: keptLinkFolders(linksBefore), file, args }),
                };
          hold = setTimeout(release, START_HOLD_MS);
          result = await spawnBounded({
            ...spawned,
            cwd,
            env: sandbox === undefined ? env : {},
            fd3: sandbox === undefined ? undefined : SANDBOX_FILTER,
            stdin: spawnOptions.stdin,
            timeoutMs: spawnOptions.timeoutMs ?? options.defaultTimeoutMs ?? 60_000,
            maxOutputBytes: spawnOptions.maxOutputBytes ?? options.defaultMaxOutputBytes ?? 1024 * 1024,
            killGraceMs: options.killGraceMs ?? 2000,
            signal,
          });
        } finally {
          // Before anything else, an aborted command included: what it added to an index is taken out (and the indexes are
          // left, so the next command is held to what they hold then).
          check = entered === undefined || holder === undefined ? undefined : await holder.leave(entered);
          // Before the walk after it, which then finds the links as the user had them.
          linksProblem = linksBefore === undefined ? undefined : linkKeeper.leave(linksBefore);
          const after = writing && walked !== undefined ? walkedAfter(findProtectedFiles, options.maskWalkLimit) : undefined;
          if (nested !== undefined && walked !== undefined) {
            if (after !== undefined) nested.learn(after.repositories);
            nestedCheck = await nested.leave(after?.repositories ?? walked.repositories, after !== undefined);
          }
          // After the repositories: a repository made in a protected folder it made is moved aside before the folder is.
          if (protectedBefore !== undefined) protectedCheck = protectedCreation.leave(protectedBefore, after);
        }
        // First: a workspace the walk after could not see whole fails the nested repositories' check too, and this one
        // names what an agent would read at its start, moved aside.
        if (protectedCheck?.problem !== undefined) throw hostUnavailable(tool, 'process', protectedCheck.problem);
        if (linksProblem !== undefined) throw hostUnavailable(tool, 'process', linksProblem);
        const movedProtectedPaths = protectedCheck?.moved ?? [];
        const removedGitlinks = gitlinksTakenOut(check, tool);
        const movedRepositories = repositoriesMovedAside(nestedCheck, tool, 'process', 'the command ran');
        if (result.aborted) signal?.throwIfAborted();
        if (result.spawnError !== undefined) throw hostUnavailable(tool, 'process', `the command could not be started (${result.spawnError})`);
        return {
          exitCode: result.exitCode,
          signal: result.signal,
          stdout: result.stdout,
          stderr: result.stderr,
          timedOut: result.timedOut,
          truncated: result.truncated,
          sandbox: sandbox === undefined ? 'none' : 'bwrap',
          ...(removedGitlinks.length === 0 ? {} : { removedGitlinks }),
          ...(movedRepositories.length === 0 ? {} : { movedRepositories }),
          ...(movedProtectedPaths.length === 0 ? {} : { movedProtectedPaths }),
        };
      } finally {
        clearTimeout(hold);
        release();
      }
    },
  };
}

/** The submodule entries taken out after a command; an index that had to be moved aside, or could not be, fails the call. */
function gitlinksTakenOut(check: RepositoriesCheck | undefined, tool: string | undefined): readonly string[] {
  if (check === undefined) return [];
  const what = "the command ran, but git could not list a repository's index afterwards or take out the submodule entries it added";
  if (check.failed.length > 0) throw hostUnavailable(tool, 'process', `${what}, nor move it aside (${check.failed.join(', ')}): check the repository's submodule entries (git ls-files --stage) before running git in it`);
  if (check.quarantined.length > 0) throw hostUnavailable(tool, 'process', `${what}: the index was moved aside to ${check.quarantined.join(', ')}, so the user's git reads no staged changes there until it is looked at (it may list a repository whose configuration runs a program)`);
  return check.removed;
}

/** The `.git` of each folder from `target`'s up to the workspace's (not its own): the repositories a file there may belong to. */
function repositoriesAround(workspace: string, target: string): string[] {
  const found: string[] = [];
  for (let folder = path.dirname(target); folder.startsWith(`${workspace}${path.sep}`); folder = path.dirname(folder)) {
    const entry = path.join(folder, '.git');
    if (lstatSync(entry, { throwIfNoEntry: false }) !== undefined) found.push(entry);
  }
  return found;
}

/** The walk after a command: undefined when it could not see the whole workspace, or threw (a tree deeper than a path can name). */
function walkedAfter(find: (limit?: MaskWalkLimit) => ProtectedFiles, limit: MaskWalkLimit | undefined): FoundProtectedFiles | undefined {
  try {
    const walked = find(limit);
    return walked.kind === 'found' ? walked : undefined;
  } catch {
    return undefined;
  }
}

/** The nested repositories' `.git` entries a walk found; undefined when it could not see the whole workspace. */
function walkedRepositories(walked: ProtectedFiles): readonly string[] | undefined {
  return walked.kind === 'found' ? walked.repositories : undefined;
}

/** The answer to an operation (a file write, an upstream call) after which repositories were moved aside. */
function movedAsideError(tool: string | undefined, capability: HeldWrite['capability'], done: string, moved: readonly MovedRepository[]): Error {
  const what = moved.map((entry) => `${entry.from} (${entry.because.join(', ')}) to ${entry.to}`).join('; ');
  return hostUnavailable(tool, capability, `${done}, and it gave a nested repository code the user's git would run on entering it as a submodule, so its .git was moved aside: ${what}`);
}

/** The repositories moved aside after an operation; one that could not be checked or moved fails the call. */
function repositoriesMovedAside(check: NestedRepositoriesCheck | undefined, tool: string | undefined, capability: HeldWrite['capability'] | 'process', done: string): readonly MovedRepository[] {
  if (check === undefined) return [];
  if (!check.unchecked && check.failed.length === 0) return check.moved;
  const why = check.unchecked ? 'the workspace could not be walked whole afterwards' : `${check.failed.join(', ')} could not be moved aside`;
  throw hostUnavailable(
    tool,
    capability,
    `${done}, but toolgate could not check the repositories in the workspace for configuration or hooks it added (${why}): look at each nested repository's .git/config and .git/hooks before running git where a commit lists it as a submodule`,
  );
}

/**
 * The repositories a command is held to: the workspace's and its submodules' indexes, and what the sandbox holds of
 * them for `heldFor`. Without git on the host there is no index to list (nor a git for the user to enter a
 * submodule with): the workspace's own code is still held. What cannot be listed or held is not run.
 */
async function enterRepositories(holder: RepositoryHolder | undefined, workspace: string, heldFor: HeldFor, tool: string | undefined): Promise<EnteredRepositories | undefined> {
  try {
    if (holder !== undefined) return await holder.enter(heldFor);
    return { code: heldFor === 'program' ? findRepositoryCode(workspace) : undefined, indexes: [] };
  } catch (error) {
    if (error instanceof UnheldRepositoryError) throw hostUnavailable(tool, 'process', error.message);
    // A git folder the file system refuses (a hooks folder or `commondir` that cannot be placed, a folder that cannot be
    // read) is not run unguarded; the error's code says why, and the path stays out. Anything else is a fault, and surfaces as one.
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw error;
    throw hostUnavailable(tool, 'process', `the repository's hooks and configuration could not be held read-only in the sandbox (${code})`);
  }
}

/** The absolute real paths of the argument files a command was judged with (those with a content stamp). */
function heldArguments(jail: FsJail, judged: readonly ResolvedPath[] | undefined): string[] {
  return (judged ?? []).filter((entry) => entry.contentStamp !== undefined).map((entry) => path.resolve(jail.workspace, entry.real));
}

/** The workspace as walked: its protected files to mask, its nested repositories; a workspace past the walk's limit, or holding a name no path string can mask, is refused, never run unmasked. */
function workspaceWalked(found: ProtectedFiles, tool: string | undefined): FoundProtectedFiles {
  if (found.kind === 'over_limit') {
    const bound = found.bound === 'entries' ? 'more entries' : 'more time';
    throw hostUnavailable(tool, 'process', `the workspace needs ${bound} than the sandbox may spend finding its protected files to mask, so the command was not run (raise maskWalkLimit or narrow the workspace)`);
  }
  if (found.kind === 'undecodable_name') {
    throw hostUnavailable(tool, 'process', `${found.folder} holds a name that is not valid UTF-8, which the sandbox cannot mask, so the command was not run (rename it)`);
  }
  return found;
}

/** git's environment, with the program-naming keys of this repository's own configuration made inert. */
async function hardenForRepository(probe: RepositoryOverridesOptions, tool: string | undefined): Promise<Readonly<Record<string, string>>> {
  const overrides = await repositoryGitOverrides(probe);
  if (overrides === undefined) {
    probe.signal?.throwIfAborted();
    throw hostUnavailable(tool, 'process', 'git could not read the repository configuration, it includes a file under a condition the host cannot vet, or a working tree lies in a git folder, so the command was not run');
  }
  return overrides.length === 0 ? probe.env : withGitConfig(probe.env, overrides);
}

/** The argv as judged, and the executable when the host resolved one then. */
function sameCommand(expected: ResolvedCommand, file: string, command: string, args: readonly string[]): boolean {
  if (expected.executable !== undefined && expected.executable !== file) return false;
  return expected.argv.length === args.length + 1 && expected.argv[0] === command && args.every((arg, index) => expected.argv[index + 1] === arg);
}

/**
 * Whether each path the arguments name is still what was judged, resolved as before: the same real path, the same
 * file there (or still none) with the same bytes (a script rewritten while its approval was open is not run), a
 * listing judged (a workspace's members) with the same names.
 */
function sameArguments(expected: readonly ResolvedPath[], resolveTarget: ReturnType<typeof createResolveTarget>, tool: string | undefined): boolean {
  const listings = expected.flatMap((entry, index) => (entry.contentStamp !== undefined && entry.identity?.startsWith('directory:') === true ? [index] : []));
  const now = resolveTarget({ tool: tool ?? 'host', access: 'read', paths: [], arguments: expected.map((entry) => entry.requested), listings }).arguments ?? [];
  return expected.every((was, index) => {
    const is = now[index];
    return is !== undefined && is.real === was.real && is.identity === was.identity && is.contentStamp === was.contentStamp && is.created === was.created && is.protected === was.protected;
  });
}

/** The working directory: inside the jail, an existing directory, verified by opening it, and the one that was judged. */
async function resolveCwd(jail: FsJail, requested: string | undefined, tool: string | undefined, expected: ResolvedPath | undefined): Promise<string> {
  if ((requested === undefined || requested === '' || requested === '.') && expected?.identity === undefined) return jail.workspace;
  const target = resolveJailedPath(jail, requested === undefined || requested === '' ? '.' : requested, tool, expected);
  if (target.missing.length > 0) throw hostDenial(tool, 'not_a_directory');
  refuseNonFolder(target, tool, 'folder');
  const directory = await openAsResolved(target, tool, () => openVerifiedDirectory(jail, target.absolute, tool));
  try {
    sameTarget(target, await directory.handle.stat(), tool);
  } finally {
    await directory.handle.close();
  }
  return path.normalize(target.absolute);
}
