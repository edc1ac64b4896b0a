import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, constants, lstatSync, readdirSync, statSync } from 'node:fs';
import { copyFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { readRegularFile } from '../fs/read-regular-file.js';
import { spawnCovered } from './inherited-descriptors.js';
import { spawnBounded } from './spawn-bounded.js';

/** The submodule entries (gitlinks) of the index the guard holds a command to. */
export interface GitlinkBaseline {
  readonly paths: ReadonlySet<string>;
}

/** What the guard did after a command. */
export type GitlinkCheck =
  /** The entries the command added, taken out of the index again (none, mostly). */
  | { readonly kind: 'checked'; readonly removed: readonly string[] }
  /**
   * git could not list the index, or could not take an added entry out
   * (a name git refuses to handle, such as `git~1`): the index was moved
   * aside, to this name in `.git`, so the user's git reads none.
   */
  | { readonly kind: 'quarantined'; readonly name: string }
  /** Not even that: the index stays as the command left it. */
  | { readonly kind: 'failed' };

export interface GitlinkGuard {
  /** The entries a command is held to. Undefined when git cannot list the index: the command is then not run. */
  before(): Promise<GitlinkBaseline | undefined>;
  /** After the command, whatever became of it: takes out the entries it added. */
  after(baseline: GitlinkBaseline): Promise<GitlinkCheck>;
}

export interface GitlinkGuardOptions {
  /** The repository's git folder, which holds the index: the workspace's `.git`, or a submodule's. */
  readonly gitDir: string;
  /** Its working tree: the workspace, or the submodule's folder. */
  readonly workTree: string;
  /** The host's git. */
  readonly git: string;
  /** A hardened environment for it, with nothing a call declared. */
  readonly env: Readonly<Record<string, string>>;
  /** How long one listing of the index may take. */
  readonly timeoutMs?: number;
}

const GITLINK = Buffer.from('160000 ');
/** A record of `ls-files --stage -z` longer than this is not an index entry git wrote for a path. */
const MAX_RECORD_BYTES = 1024 * 1024;
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The user's own git enters the repository each gitlink of the index names:
 * `git status` runs git inside it, with that repository's configuration (its
 * `core.fsmonitor`) and hooks. A command can make such a repository (`git
 * init sub`, a program-naming key in `sub/.git/config`) and list it (its own
 * `git update-index --cacheinfo 160000,…,sub`, or the agent's next `git add
 * sub`), and the next `git status` the user types runs that program, outside
 * toolgate and its sandbox. So every entry a command adds is taken out of
 * the index again once it ends (the nested repository stays, as an untracked
 * folder the user's git does not enter).
 *
 * The entries a command is held to are those of the index when no other
 * command was running: a command that starts while another runs is held to
 * the same ones, so an entry the first adds cannot pass as the second's
 * starting point. git lists the index (it may be split, sparse, or of
 * version 4), streamed, keeping only the gitlinks, and only when the index
 * (its content, through a link there, and the shared index files of a
 * split index) changed since the last listing. The entries are taken out by
 * git on a copy of the index, listed again, and the copy then replaces the
 * index, as git's own lock file does: an `index.lock` a command left behind
 * does not keep an entry in. What cannot be listed or taken out is not left
 * for the user's git: the index is moved aside.
 */
export function createGitlinkGuard(options: GitlinkGuardOptions): GitlinkGuard {
  const { gitDir, workTree } = options;
  const index = path.join(gitDir, 'index');
  const timeoutMs = options.timeoutMs ?? 60_000;
  // git told which repository it lists, never left to find one from the folder it starts in.
  const gitEnv = { ...options.env, GIT_DIR: gitDir, GIT_WORK_TREE: workTree };
  let listed: { readonly stamp: string; readonly paths: ReadonlySet<string> } | undefined;
  let baseline: GitlinkBaseline | undefined;
  /** Commands entered, from the start of `before` to the end of `after`. */
  let running = 0;
  /** A baseline being read: a command entering meanwhile waits for it rather than read one of its own. */
  let reading: Promise<GitlinkBaseline | undefined> | undefined;
  const shared = { folder: '', names: [] as readonly string[] };

  /** The index's gitlinks now; undefined when git cannot list them all by name. */
  const read = async (): Promise<ReadonlySet<string> | undefined> => {
    let stamp: string;
    try {
      stamp = stampOf(gitDir, index, shared);
    } catch {
      return undefined;
    }
    if (listed?.stamp === stamp) return listed.paths;
    const paths = stamp === '' ? new Set<string>() : await listGitlinks(options.git, workTree, gitEnv, timeoutMs);
    if (paths !== undefined) listed = { stamp, paths };
    return paths;
  };

  /**
   * The index without `entries`, or false: git edits a copy, which replaces
   * the index once a listing shows it holds no gitlink but the baseline's.
   * A command still running could write the copy (it is in `.git`): what
   * was checked is compared with what the index then holds.
   */
  const removeEntries = async (entries: readonly string[], held: GitlinkBaseline): Promise<boolean> => {
    const copy = path.join(gitDir, `index.toolgate-${randomUUID()}`);
    const env = { ...gitEnv, GIT_INDEX_FILE: copy };
    try {
      ownerCanWrite(gitDir);
      await copyFile(index, copy, constants.COPYFILE_EXCL);
      const removed = await spawnBounded({ file: options.git, args: ['update-index', '--force-remove', '-z', '--stdin'], stdin: `${entries.join('\0')}\0`, cwd: workTree, env, timeoutMs, maxOutputBytes: 64 * 1024, killGraceMs: 500 });
      if (removed.exitCode !== 0 || removed.spawnError !== undefined) return false;
      // git skips a name it refuses to handle (`git~1`, `.git/sub`) and still succeeds: only a listing says it is gone.
      const left = await listGitlinks(options.git, workTree, env, timeoutMs);
      if (left === undefined || [...left].some((entry) => !held.paths.has(entry))) return false;
      const checked = createHash('sha256').update(readRegularFile(copy)).digest('hex');
      await rename(copy, index);
      return createHash('sha256').update(readRegularFile(index)).digest('hex') === checked;
    } catch {
      return false;
    } finally {
      await rm(copy, { force: true });
    }
  };

  /** The index moved aside, so the user's git reads none of its entries; its new name in `.git`, or undefined. */
  const quarantine = async (): Promise<string | undefined> => {
    const name = `index.toolgate-quarantined-${randomUUID()}`;
    try {
      ownerCanWrite(gitDir);
    } catch {
      return undefined;
    }
    return rename(index, path.join(gitDir, name)).then(
      () => name,
      () => undefined,
    );
  };

  return {
    async before() {
      // A baseline is read only when no other command has entered: one that entered while it was being read
      // waits for the same reading, so no command runs while a listing that becomes the baseline is still under way.
      running += 1;
      if (reading === undefined && (running === 1 || baseline === undefined)) {
        reading = read().then((paths) => (paths === undefined ? undefined : (baseline = { paths })));
        const done = reading;
        const clear = (): void => {
          if (reading === done) reading = undefined;
        };
        done.then(clear, clear);
      }
      const held = reading === undefined ? baseline : await reading;
      if (held === undefined) running -= 1;
      return held;
    },
    async after(held) {
      try {
        const now = await read();
        const added = now === undefined ? undefined : [...now].filter((entry) => !held.paths.has(entry));
        // Taking entries out replaces the index, so the next read lists it again.
        if (added !== undefined && (added.length === 0 || (await removeEntries(added, held)))) return { kind: 'checked', removed: added };
        const name = await quarantine();
        return name === undefined ? { kind: 'failed' } : { kind: 'quarantined', name };
      } finally {
        running -= 1;
      }
    },
  };
}

/**
 * What tells whether the index changed: the SHA-256 of its content (through
 * a link there) and of the shared index files a split index keeps beside it
 * (the folder is read again only when it changed). The content, not the
 * file's times: a write through a memory mapping whose page is already
 * dirty changes neither its times nor its size. An empty string when there
 * is no index. Synchronous: a few reads cost less than their trips through
 * the thread pool.
 */
function stampOf(gitDir: string, index: string, shared: { folder: string; names: readonly string[] }): string {
  if (lstatSync(index, { throwIfNoEntry: false }) === undefined) return '';
  const hash = createHash('sha256').update(readRegularFile(index));
  const folder = statSync(gitDir, { bigint: true });
  const identity = `${folder.dev}:${folder.ino}:${folder.mtimeNs}:${folder.ctimeNs}`;
  if (shared.folder !== identity) {
    shared.names = readdirSync(gitDir).filter((name) => name.startsWith('sharedindex.'));
    shared.folder = identity;
  }
  for (const name of shared.names) hash.update(`\0${name}\0`).update(readRegularFile(path.join(gitDir, name)));
  return hash.digest('hex');
}

/** A command may have taken the owner's write permission off `.git` (its own files the host must replace): given back. */
function ownerCanWrite(folder: string): void {
  const mode = statSync(folder).mode;
  if ((mode & 0o200) === 0) chmodSync(folder, (mode & 0o7777) | 0o200);
}

/**
 * The gitlinks `git ls-files --stage -z` lists, read as it streams (an index
 * of any size is listed whole; only the gitlinks are kept). Undefined when
 * git fails or takes longer than `timeoutMs`, or a gitlink's path is not
 * UTF-8 (it could not be named back to git).
 */
function listGitlinks(git: string, cwd: string, env: Readonly<Record<string, string>>, timeoutMs: number): Promise<Set<string> | undefined> {
  return new Promise((resolve) => {
    const paths = new Set<string>();
    let failed = false;
    let pending: Buffer = Buffer.alloc(0);
    const child = spawnCovered(git, ['ls-files', '--stage', '-z', '--full-name'], { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] });
    const fail = (): void => {
      failed = true;
      child.kill('SIGKILL');
    };
    // A piped stdout always exists; the type cannot say so for a spawn given its stdio as a list.
    const output = child.stdout;
    if (output === null) {
      fail();
      resolve(undefined);
      return;
    }
    const timer = setTimeout(fail, timeoutMs);
    output.on('data', (chunk: Buffer) => {
      if (failed) return;
      const data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let start = 0;
      for (let end = data.indexOf(0, start); end !== -1; end = data.indexOf(0, start)) {
        const record = data.subarray(start, end);
        start = end + 1;
        if (record.subarray(0, GITLINK.length).equals(GITLINK)) {
          try {
            paths.add(decoder.decode(record.subarray(record.indexOf(9) + 1)));
          } catch {
            return fail();
          }
        }
      }
      pending = Buffer.from(data.subarray(start));
      if (pending.length > MAX_RECORD_BYTES) fail();
    });
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(!failed && code === 0 && pending.length === 0 ? paths : undefined);
    });
  });
}
