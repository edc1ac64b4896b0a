import { lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigurationError } from '../core/internal.js';
import { nodeSha256 } from './digest/node-sha256.js';
import { createEgressCapability } from './egress/create-egress-capability.js';
import { createFsCapability } from './fs/create-fs-capability.js';
import { createPathLocks } from './fs/path-locks.js';
import { createPathTextMatcher, withoutRoot } from '../core/policy/protected-paths.js';
import { createFsJail, isInside, realOrSelf, type FsJail } from './fs/fs-jail.js';
import { createLinkedProtection } from './fs/linked-protection.js';
import { prepareOwnFolder } from './fs/prepare-own-folder.js';
import { credentialPaths } from './fs/system-credential-paths.js';
import { createResolveTarget } from './fs/resolve-target.js';
import type { NodeHost, NodeHostOptions } from './node-host-types.js';
import { createOsCapability } from './os/create-os-capability.js';
import { createProcessCapability } from './process/create-process-capability.js';
import { createProtectedFileFinder } from './process/find-protected-files.js';
import { createObjectStoreReader } from './process/object-store-content.js';
import { keepingWorkTreeCode, UnkeptWorkTreeCodeError } from './process/keep-work-tree-code.js';
import { SYSTEM_PATH } from './process/system-path.js';
import { writeGitDiffShim } from './process/write-git-diff-shim.js';
import { createMediaStore } from './stores/create-media-store.js';
import { createOutputStore } from './stores/create-output-store.js';
import { createSecretsCapability, createSecretStore } from './stores/create-secret-store.js';

const SCOPES = new Set(['read-only', 'workspace-write', 'full']);
/** The spill folder's own folders: each store's, and the git diff shim's. */
const SPILL_FOLDERS = ['media', 'runs', 'bin'];
const SANDBOXES = new Set(['auto', 'required', 'off']);

/**
 * The Node host: performs every side effect the engine decided on, inside a
 * jail captured here once. Options are checked up front; a bad option throws
 * `ConfigurationError`, never a half-built host.
 */
export function createNodeHost(options: NodeHostOptions): NodeHost {
  const scope = options.scope ?? 'workspace-write';
  const sandbox = options.sandbox ?? 'auto';
  if (!SCOPES.has(scope)) throw new ConfigurationError('scope', "must be 'read-only', 'workspace-write' or 'full'");
  if (!SANDBOXES.has(sandbox)) throw new ConfigurationError('sandbox', "must be 'auto', 'required' or 'off'");
  const ownsSpillDir = options.spillDir === undefined;
  const spillDir = options.spillDir ?? mkdtempSync(path.join(tmpdir(), 'toolgate-'));
  if (!path.isAbsolute(spillDir)) throw new ConfigurationError('spillDir', 'must be an absolute path');
  for (const folder of [spillDir, ...SPILL_FOLDERS.map((name) => path.join(spillDir, name))]) {
    const problem = prepareOwnFolder(folder, folder === spillDir);
    if (problem !== undefined) throw new ConfigurationError('spillDir', `holds ${folder}, which ${problem}: the host writes its spills, media and git shim there and sweeps them`);
  }
  const secretStore = createSecretStore(options.secrets);
  const hostPaths = [spillDir, ...(secretStore.path === undefined ? [] : [secretStore.path])];
  const protectedPaths = options.protectedPaths ?? [];
  const privatePaths = options.privatePaths ?? [];
  // In the full tier /proc is inside the jail's root: there a tool (an upstream server reading a file to its end, which
  // the built-in read_file does not) read the gateway's environment and any process's, its memory, descriptors and
  // command lines. Elsewhere the jail keeps it out already, and says so.
  const unreachablePaths = scope === 'full' && process.platform === 'linux' ? ['/proc'] : [];
  const home = options.home ?? homedir();
  if (!path.isAbsolute(home)) throw new ConfigurationError('home', 'must be an absolute path');
  // By the workspace's real path, as the jail holds it (the jail refuses one that does not exist).
  const credentials = credentialPaths(realOrSelf(path.resolve(options.workspace)), home, HOME_CREDENTIAL_PATHS, scope === 'full');
  const linked = createLinkedProtection(realOrSelf(path.resolve(options.workspace)));
  const jail = createFsJail({ workspace: options.workspace, scope, protectedPaths, privatePaths, hostPaths, unreachablePaths, isCredential: credentials.matches, isLinkedProtected: (absolute) => linked.has(absolute) });
  const systemPath = options.executablePath ?? SYSTEM_PATH;
  if (systemPath.some((directory) => !path.isAbsolute(directory) || isInside(jail.workspace, directory) || directory.includes('node_modules'))) {
    throw new ConfigurationError('executablePath', 'must list absolute directories outside the workspace and node_modules');
  }
  const readable = options.readableProtectedPaths ?? [];
  if (!Array.isArray(readable) || readable.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new ConfigurationError('readableProtectedPaths', 'must list non-empty path globs');
  }
  for (const name of options.env?.allow ?? []) {
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ConfigurationError('env.allow', 'must list environment variable names');
  }

  for (const key of ['maxSpillBytes', 'maxMediaStoreBytes'] as const) {
    const bytes = options[key];
    if (bytes !== undefined && (!Number.isSafeInteger(bytes) || bytes < 0)) throw new ConfigurationError(key, 'must be a whole number of bytes, 0 or more');
  }
  const mediaStore = createMediaStore(path.join(spillDir, 'media'), options.maxMediaStoreBytes === undefined ? {} : { maxBytes: options.maxMediaStoreBytes });
  const outputStore = createOutputStore(path.join(spillDir, 'runs'), options.maxSpillBytes === undefined ? {} : { maxBytes: options.maxSpillBytes });
  // One set of holds for both: a write waits while a command that names its file starts (`createPathLocks`).
  const locks = createPathLocks();
  const processCapability = createProcessCapability({
    jail,
    locks,
    sandbox,
    systemPath,
    env: { allow: options.env?.allow ?? [], set: options.env?.set ?? {} },
    gitExternalDiff: writeGitDiffShim(path.join(spillDir, 'bin')),
    ...(options.maskWalkLimit === undefined ? {} : { maskWalkLimit: options.maskWalkLimit }),
    isReadableProtected: readableProtected(jail, readable),
    linked,
    // Only the paths are fixed here: whether each is masked as a folder, a file or not at all is decided at each spawn (maskKind).
    home,
    hidden: [
      ...hostPaths,
      ...literalPaths(jail.workspace, [...protectedPaths, ...privatePaths]),
      ...credentials.places,
      ...runtimeFolders(jail.workspace),
    ].map((entry) => ({ path: entry })),
  });
  const egress = createEgressCapability({ ...options.egress, secrets: secretStore, mediaStore });
  // The workspace's protected files, kept across an upstream call: a server writes them outside the sandbox's masks.
  // A private file is kept only where it is the configuration (`toolgate.config.*`): the gateway writes its journal as calls run.
  const walkProtected = createProtectedFileFinder(jail, readableProtected(jail, readable));
  const isConfiguration = createPathTextMatcher(['**/toolgate.config.*']);
  const kept = (entry: string): boolean => {
    const verdict = jail.classify(entry);
    return verdict === 'protected' || (verdict === 'protected_path' && isConfiguration(withoutRoot(jail.display(entry))));
  };
  const protectedFiles = (): string[] => {
    const found = walkProtected(options.maskWalkLimit);
    if (found.kind !== 'found') throw new UnkeptWorkTreeCodeError('the workspace could not be walked whole for its protected files');
    return found.paths.filter((entry) => kept(entry) && lstatSync(entry, { throwIfNoEntry: false })?.isFile() === true);
  };

  return {
    workspace: jail.workspace,
    scope,
    resolve: createResolveTarget({ jail, systemPath, holdsProtected: (absolute) => linked.holds(absolute), objectStore: createObjectStoreReader(storedProtected(jail, readable)) }),
    sha256: nodeSha256,
    fs: createFsCapability({
      jail,
      mediaStore,
      maxFileBytes: options.maxFileBytes ?? 10 * 1024 * 1024,
      locks,
      holdingRepositories: (tool, held, write) => processCapability.holdingRepositories(tool, held, write),
    }),
    process: processCapability,
    egress,
    os: createOsCapability({ systemPath, workspace: jail.workspace }),
    outputStore,
    mediaStore,
    secrets: createSecretsCapability(secretStore),
    sandboxStatus: () => processCapability.sandboxStatus(),
    holdingRepositories: (mcp) => ({
      call: (input, signal, callOptions) => {
        const held = (): ReturnType<typeof mcp.call> => processCapability.holdingRepositories(input.tool, { capability: 'mcp' }, () => mcp.call(input, signal, callOptions));
        // An upstream server runs outside the sandbox: in a writing tier, what a call that writes the work tree beyond the
        // paths it names (a git server's checkout) wrote of its git code and protected files is undone. Only such a call:
        // keeping them walks the workspace on the gateway's thread, 7 ms for 1,000 files and 33 ms for 41,000.
        return scope === 'read-only' || input.writesWorkTree !== true ? held() : keepingWorkTreeCode(jail.workspace, input.tool, held, protectedFiles);
      },
    }),
    endRun: (runId) => outputStore.endRun(runId),
    async close() {
      await egress.close();
      // Retried: a spill still landing from a call that outlived its run would otherwise fail the removal.
      if (ownsSpillDir) rmSync(spillDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/**
 * Where the host user's home keeps credentials: the places of the default
 * protected list that live there, the tokens of the tools agents drive
 * most (GitHub CLI, Cargo, Claude Code, Gemini CLI, Codex, Copilot,
 * opencode, Cursor's server settings), git's own credential store under
 * `.config`, registry, database, vault, cloud and build-tool passwords, and
 * the user's password store and keyrings. A sandboxed command sees the root
 * read-only, so without these masks `grep -r` of the home folder, or a
 * `cat` a glob allows, would read keys no protected path names: in the
 * `workspace-write` tier `cat ~/.codex/auth.json` answered with the token.
 * `.gitconfig` stays readable: git needs the user's identity to commit.
 */
export const HOME_CREDENTIAL_PATHS: readonly string[] = Object.freeze([
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.config/gcloud',
  '.config/gh',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.yarnrc',
  '.yarnrc.yml',
  '.git-credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.claude',
  '.claude.json',
  '.gemini',
  '.toolgate',
  '.env',
  '.codex',
  '.cursor',
  '.config/github-copilot',
  '.local/share/opencode/auth.json',
  '.config/git/credentials',
  '.config/hub',
  '.config/containers/auth.json',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.boto',
  '.s3cfg',
  '.config/rclone',
  '.oci',
  '.config/doctl',
  '.password-store',
  '.local/share/keyrings',
  // Where keys are kept without a store of their own: the shell's startup files (`export OPENAI_API_KEY=…`, as the
  // vendors' set-up guides say; protected by name already, but read by a `grep -r` of the home) and the histories of
  // shells and clients (an `export` or a `curl -H "Authorization: …"` typed once), which a `cat` read as well.
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.config/fish',
  '.bash_history',
  '.zsh_history',
  '.history',
  '.sh_history',
  '.python_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.node_repl_history',
  '.rediscli_history',
  '.local/share/fish',
  // And the token files of tools the stores above do not cover: Hugging Face, Kaggle, RubyGems, Composer, Databricks.
  '.cache/huggingface/token',
  '.cache/huggingface/stored_tokens',
  '.huggingface/token',
  '.kaggle',
  '.config/kaggle',
  '.gem/credentials',
  '.local/share/gem/credentials',
  '.composer/auth.json',
  '.config/composer/auth.json',
  '.databrickscfg',
]);

/**
 * The users' runtime folders (`/run/user`, and the host's own
 * `$XDG_RUNTIME_DIR` wherever it is): the session bus, the ssh, gpg and
 * keyring agents, rootless docker and podman (with podman's registry
 * credentials, `containers/auth.json`), the display's sockets. The sandbox's
 * filter already keeps commands from connecting to any Unix socket; masked,
 * they do not even see them, which still holds where that filter does not
 * run (an architecture it does not know), and the files kept beside them
 * stay unread. A folder that holds the workspace is left visible: masking
 * it would hide the workspace from its own commands.
 */
function runtimeFolders(workspace: string): string[] {
  const runtime = process.env.XDG_RUNTIME_DIR;
  const folders = ['/run/user', ...(runtime !== undefined && path.isAbsolute(runtime) ? [runtime] : [])];
  // Compared by real paths, as the workspace is.
  return folders.filter((folder) => !isInside(realOrSelf(folder), workspace));
}

/** Whether a protected file is one the policy lets be read, by its workspace-relative path. */
function readableProtected(jail: FsJail, readable: readonly string[]): (absolute: string) => boolean {
  if (readable.length === 0) return () => false;
  const matches = createPathTextMatcher(readable);
  return (absolute) => matches(withoutRoot(jail.display(absolute)));
}

/**
 * Whether a path a repository's trees name is a protected file whose blob git would print, as the sandbox masks it
 * (`masksWhole`): one `readableProtectedPaths` names is read freely on disk too, unless only the host protects it.
 */
function storedProtected(jail: FsJail, readable: readonly string[]): (absolute: string) => boolean {
  const isReadable = readableProtected(jail, readable);
  return (absolute) => {
    const kind = jail.classify(absolute);
    return kind !== 'open' && !(kind === 'protected' && isReadable(absolute));
  };
}

/**
 * Protected paths that name one place, as absolute paths: masked even outside the workspace, where no walk looks. An
 * absolute entry is one place whatever characters it holds, as the jail reads it (`team[prod].toml` is that file, not a
 * glob); a relative one, only without glob characters.
 */
function literalPaths(workspace: string, protectedPaths: readonly string[]): string[] {
  return protectedPaths.filter((entry) => path.isAbsolute(entry) || !/[*?[\]{}!]/.test(entry)).map((entry) => path.resolve(workspace, entry));
}
