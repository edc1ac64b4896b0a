import { lstatSync } from 'node:fs';
import path from 'node:path';
import type { MovedRepository } from '../../core/internal.js';
import { nodeSha256 } from '../digest/node-sha256.js';
import { inBatches } from './in-batches.js';
import { fromWorkspace, moveAside } from './move-aside.js';
import { parseConfigList, type ConfigEntry } from './neutral-git-config.js';
import { readRepositoryCode, type CodeFinding } from './read-repository-code.js';
import { spawnBounded } from './spawn-bounded.js';

export interface NestedRepositoryGuardOptions {
  readonly workspace: string;
  /** The host's git, which reads configuration files as the user's git does, and a hardened environment for it. */
  readonly git: string;
  readonly env: Readonly<Record<string, string>>;
}

export interface NestedRepositoriesCheck {
  readonly moved: readonly MovedRepository[];
  /** The `.git` of each such repository the host could not move, from the workspace. */
  readonly failed: readonly string[];
  /** The workspace could not be walked whole: what it holds was not checked. */
  readonly unchecked: boolean;
}

export interface NestedRepositoryGuard {
  /**
   * Before an operation that may write the workspace (a command, a file
   * written): when none other is under way, and the last check left nothing
   * behind, what each repository at `entries` (each a `.git`, as the
   * workspace walk found them) holds is taken as the user's. Operations
   * entering while that is read wait for it.
   */
  enter(entries: readonly string[]): Promise<void>;
  /**
   * After it: each repository at `entries` holding a finding the user's did
   * not, moved aside. `whole` false: the workspace could not be walked
   * after the operation, and `entries` are those known before it; what they
   * hold is checked all the same, and nothing is taken as the user's until
   * a check of the whole completes.
   */
  leave(entries: readonly string[], whole: boolean): Promise<NestedRepositoriesCheck>;
  /** The `.git` entries the last walk of the whole workspace passed (undefined before one), for an operation that makes no repository (a file written) to check again. */
  readonly known: readonly string[] | undefined;
  /** Remember what a walk of the whole workspace found (`known`). */
  learn(entries: readonly string[]): void;
}

/** What the `.git` of a repository becomes when it is moved aside. */
export const MOVED_ASIDE_NAME = '.git-held-by-toolgate';

/** Configuration texts read by git, kept by digest; past this many the keeping starts over. */
const MAX_KEPT_CONFIGS = 1024;
/** Repositories read at once: each may start a git process the first time its configuration is seen. */
const READ_CONCURRENCY = 8;
/** How long git may take to read one configuration file. */
const CONFIG_TIMEOUT_MS = 10_000;

/**
 * Nested repositories: a repository anywhere in the workspace but the
 * workspace's own, which the user's git enters as a submodule once its index
 * lists one at that place, with that repository's configuration and hooks.
 * A checkout does that: of an old commit that had a submodule there, or of
 * a commit a command made past the index. The index is not the only way in,
 * so neither is the gitlink guard (`createGitlinkGuard`).
 *
 * So a command, or a file written, may make or change a nested repository
 * only as long as it stays one that runs nothing git does not already run.
 * What each repository holds (`readRepositoryCode`) is taken as the user's
 * when it is read with no operation under way, each finding kept by the
 * real path it was read at; after each operation, a repository that holds a
 * finding the user's repositories did not has its `.git` moved aside, to `.git-held-by-toolgate` beside it (with a
 * random suffix when that is taken, at the workspace's top when no name
 * beside it can be had). Its files stay, nothing of the
 * repository is lost, and no git enters it until the user looks at what it
 * holds and moves it back. A repository the user made with hooks or
 * settings of their own is left alone while no operation adds any; what is
 * accepted is kept by where it was read (a linked worktree of it shares it).
 *
 * Read between operations, never at the start of each: a command starting
 * while another runs would otherwise take what the first planted as the
 * user's, and the two could pass a repository between them unseen. A check
 * that could not see the workspace whole, or move a repository, leaves
 * nothing to be taken as the user's until one completes.
 */
export function createNestedRepositoryGuard(options: NestedRepositoryGuardOptions): NestedRepositoryGuard {
  const { workspace } = options;
  let configs = new Map<string, Promise<readonly ConfigEntry[] | undefined>>();
  const readConfig = (text: string): Promise<readonly ConfigEntry[] | undefined> => {
    const key = nodeSha256(text);
    let read = configs.get(key);
    if (read === undefined) {
      if (configs.size >= MAX_KEPT_CONFIGS) configs = new Map();
      read = readConfigWithGit(options, text);
      configs.set(key, read);
    }
    return read;
  };
  const findingsAt = async (entries: readonly string[]): Promise<Map<string, CodeFinding[]>> => {
    const held = heldGitDirOf(workspace);
    return new Map(await inBatches(entries, READ_CONCURRENCY, async (entry) => [entry, await readRepositoryCode(entry, { readConfig, heldGitDir: held, workspace })] as const));
  };
  /** The findings' identities read with nothing under way, of every repository read so: the user's. */
  const accepted = new Set<string>();
  let inFlight = 0;
  /** Whether the last check saw the whole workspace and moved whatever it had to. */
  let settled = true;
  let reading: Promise<void> = Promise.resolve();
  let known: readonly string[] | undefined;

  return {
    get known() {
      return known;
    },
    learn(entries) {
      known = entries;
    },
    async enter(entries) {
      inFlight += 1;
      try {
        if (inFlight === 1 && settled) {
          reading = findingsAt(entries).then((found) => {
            for (const findings of found.values()) for (const finding of findings) accepted.add(finding.identity);
          });
        }
        await reading;
      } catch (error) {
        inFlight -= 1;
        throw error;
      }
    },
    async leave(entries, whole) {
      try {
        const found = await findingsAt(entries);
        const moved: MovedRepository[] = [];
        const failed: string[] = [];
        // Every repository is read before any is moved: a `.git` linking to another is judged by what it led to.
        for (const [entry, findings] of found) {
          const added = findings.filter((finding) => !accepted.has(finding.identity));
          if (added.length === 0) continue;
          const aside = moveAside(entry, MOVED_ASIDE_NAME, workspace);
          if (aside === 'failed') failed.push(fromWorkspace(workspace, entry));
          else if (aside !== 'gone') moved.push({ from: fromWorkspace(workspace, entry), to: fromWorkspace(workspace, aside.to), because: [...new Set(added.map((finding) => finding.what))] });
        }
        settled = whole && failed.length === 0;
        return { moved, failed, unchecked: !whole };
      } catch {
        // Not known to be settled: what the workspace holds now is nobody's to take as the user's.
        settled = false;
        return { moved: [], failed: [], unchecked: true };
      } finally {
        inFlight -= 1;
      }
    },
  };
}

/** The workspace's own git folder, real, when it is a folder: the sandbox holds its configuration and hooks read-only. */
function heldGitDirOf(workspace: string): string | undefined {
  const gitDir = path.join(workspace, '.git');
  return lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory() === true ? gitDir : undefined;
}

/** A configuration file's settings, read by git from the text (never from the file again, which may have changed). */
export async function readConfigWithGit(options: Pick<NestedRepositoryGuardOptions, 'git' | 'env'>, text: string): Promise<readonly ConfigEntry[] | undefined> {
  const read = await spawnBounded({
    file: options.git,
    // Includes stay unread: they are settings like any other, and none is neutral.
    args: ['config', '--file', '-', '--no-includes', '--list', '--null'],
    stdin: text,
    // Outside any repository, so git reads nothing but the text.
    cwd: '/',
    env: options.env,
    timeoutMs: CONFIG_TIMEOUT_MS,
    maxOutputBytes: Math.max(64 * 1024, text.length * 2),
    killGraceMs: 500,
  });
  if (read.exitCode !== 0 || read.truncated || read.spawnError !== undefined) return undefined;
  return parseConfigList(read.stdout);
}

