import { lstatSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { McpArgumentTargets } from './argument-targets.js';
import type { McpServerConfig } from './mcp-types.js';

/** One tool of a reference server: where its targets are, and whether it writes the paths it names. */
export interface KnownToolTargets {
  readonly targets: McpArgumentTargets;
  readonly access: 'read' | 'write';
  /** The member naming the folder the tool reads the relative entries of `paths` in (see `pathsWithin`). */
  readonly pathsWithin?: string;
  /** Each entry of `paths` must name one file: the tool reads a folder it is named whole and expands globs (`checkNamedFiles`). */
  readonly filesOnly?: boolean;
  /** Members the server passes to a command line as one argument: a value there that begins with `-` is an option, and refused. */
  readonly notOptions?: readonly string[];
}

/** A reference MCP server recognised from how it is started. */
export interface KnownServer {
  readonly kind: 'filesystem' | 'fetch' | 'git';
  readonly tools: Readonly<Record<string, KnownToolTargets>>;
  /** How this server reads a path argument: every spelling the policy must judge for it. */
  readonly spellings?: (requested: string) => readonly string[];
}

const read = (targets: McpArgumentTargets): KnownToolTargets => Object.freeze({ targets: Object.freeze(targets), access: 'read' });
const write = (targets: McpArgumentTargets): KnownToolTargets => Object.freeze({ targets: Object.freeze(targets), access: 'write' });
const PATH = { path: '/path' };
const REPO = { path: '/repo_path' };

/** `@modelcontextprotocol/server-filesystem`: every tool that takes a path, with the argument names it declares. */
const FILESYSTEM_TOOLS: Readonly<Record<string, KnownToolTargets>> = Object.freeze({
  read_file: read(PATH),
  read_text_file: read(PATH),
  read_media_file: read(PATH),
  read_multiple_files: read({ paths: '/paths' }),
  write_file: write(PATH),
  // Edits return a diff with the file's surrounding lines: an edit also shows what the file holds.
  edit_file: write(PATH),
  create_directory: write(PATH),
  list_directory: read(PATH),
  list_directory_with_sizes: read(PATH),
  directory_tree: read(PATH),
  move_file: write({ paths: ['/source', '/destination'] }),
  search_files: read(PATH),
  get_file_info: read(PATH),
});

/** `mcp-server-fetch`: the URL it fetches. */
const FETCH_TOOLS: Readonly<Record<string, KnownToolTargets>> = Object.freeze({ fetch: read({ url: '/url' }) });

/** `mcp-server-git`: the repository each tool acts on; the tools that change the repository or its work tree write it. */
const GIT_TOOLS: Readonly<Record<string, KnownToolTargets>> = Object.freeze({
  git_status: read(REPO),
  git_diff_unstaged: read(REPO),
  git_diff_staged: read(REPO),
  git_diff: Object.freeze({ ...read(REPO), notOptions: Object.freeze(['target']) }),
  git_log: read(REPO),
  git_show: read(REPO),
  git_branch: read(REPO),
  git_commit: write(REPO),
  // `git commit -S` through the git command line, in the same repository.
  git_commit_signed: write(REPO),
  // GitPython's `index.add` reads every file it is named inside the repository, ignored ones too, and
  // `git_diff_staged` shows them: each is a path the floor judges, where the server reads it.
  git_add: Object.freeze({ targets: Object.freeze({ ...REPO, paths: '/files' }), access: 'write', pathsWithin: '/repo_path', filesOnly: true }),
  git_reset: write(REPO),
  git_create_branch: write(REPO),
  // `git checkout <branch_name>` and `git diff <target>` take an option there: `--pathspec-from-file=.toolgate/http-token`
  // made git name each line of the file in the error the server returns, and `--output=` writes the diff to any file.
  git_checkout: Object.freeze({ ...write(REPO), notOptions: Object.freeze(['branch_name']) }),
  git_init: write(REPO),
});

/**
 * The reference server a stdio configuration starts, recognised by its
 * package or executable name anywhere in the command line (`npx -y
 * @modelcontextprotocol/server-filesystem .`, `uvx mcp-server-fetch`,
 * `python -m mcp_server_git`, a path to the installed entry point). An HTTP
 * server, or one started any other way (a container sees other paths), is
 * not recognised: its targets come from the configuration alone.
 */
export function recognizeServer(server: McpServerConfig): KnownServer | undefined {
  if (server.transport !== 'stdio') return undefined;
  const argv = [server.command, ...(server.args ?? [])];
  const at = (kind: string): number => argv.findIndex((token) => packageName(token) === kind);
  const filesystem = at('server-filesystem');
  if (filesystem !== -1) {
    const cwd = server.cwd ?? process.cwd();
    // The server's home is the one its environment names (`buildStdioEnv`): declared, or the gateway's.
    const home = homeExpander(server.env?.HOME ?? homedir());
    const directories = argv.slice(filesystem + 1).filter((token) => !token.startsWith('-')).map((token) => path.resolve(cwd, home(token)));
    return Object.freeze({ kind: 'filesystem', tools: FILESYSTEM_TOOLS, spellings: filesystemSpellings(directories.length > 0 ? directories : [cwd], home) });
  }
  if (at('server-fetch') !== -1) return Object.freeze({ kind: 'fetch', tools: FETCH_TOOLS });
  if (at('server-git') !== -1) return Object.freeze({ kind: 'git', tools: GIT_TOOLS });
  return undefined;
}

/** `~` and `~/…` as server-filesystem expands them (`expandHome`), in `home`; any other path as it is. */
function homeExpander(home: string): (requested: string) => string {
  return (requested) => (requested === '~' || requested.startsWith('~/') ? path.join(home, requested.slice(1)) : requested);
}

/**
 * Which reference server a command-line token names: `server-filesystem`,
 * `server-fetch` or `server-git`, or undefined. The token may be the npm
 * package (scoped, with a version), the executable (`mcp-server-fetch`,
 * with a version or a script extension), the Python module
 * (`mcp_server_git`) or a path to any of these.
 */
function packageName(token: string): string | undefined {
  const unified = token.replace(/\\/g, '/');
  const scoped = /(?:^|\/)@modelcontextprotocol\/(server-filesystem)(?:@[^/]*)?(?:\/|$)/.exec(unified);
  if (scoped !== null) return scoped[1];
  const base = (unified.split('/').pop() ?? '').replace(/(?:@|==).*$/, '').replace(/\.(?:m?js|cjs|py|exe)$/, '');
  const named = /^mcp[-_]server[-_](filesystem|fetch|git)$/.exec(base);
  return named === null ? undefined : `server-${named[1] as string}`;
}

/**
 * server-filesystem reads a relative path against the first of its
 * directories under which it lands (`..` can carry it into another), and
 * matches a missing name with the one name of its folder equal to it after
 * Unicode NFC normalisation. The policy judges each place the path may end
 * up in, the NFC spelling of each, and the names on disk it would open in
 * their place (`equivalentOnDisk`): a deny on any of them refuses, an allow
 * must cover them all. `~` and `~/…` are the server's home, as it expands them:
 * left as spelled, the host read them as a folder named `~` in the
 * workspace, and the gateway's own rules and keys in
 * `~/.config/toolgate/`, refused by their absolute path, were read by that
 * one.
 */
function filesystemSpellings(directories: readonly string[], home: (requested: string) => string): (requested: string) => readonly string[] {
  return (spelled) => {
    const requested = home(spelled);
    const places = path.isAbsolute(requested) ? [path.resolve(requested)] : directories.map((directory) => path.resolve(directory, requested));
    const spellings = new Set<string>();
    for (const place of places) {
      spellings.add(place);
      spellings.add(place.normalize('NFC'));
      const onDisk = equivalentOnDisk(place);
      if (onDisk !== undefined) spellings.add(onDisk);
    }
    return [...spellings];
  };
}

/**
 * The path server-filesystem opens for `place` when a name on the way is
 * missing: that name replaced by the one name of its folder equal to it
 * after NFC normalisation (`café` spelled composed opens `cafe\u0301`,
 * decomposed on disk; a `.env` linking into it was written unasked when
 * only the spellings were judged). Undefined when every name is there as
 * spelled, or from the first missing name that has no single equal.
 */
function equivalentOnDisk(place: string): string | undefined {
  const { root } = path.parse(place);
  const names = place.slice(root.length).split(path.sep).filter((name) => name.length > 0);
  let folder = root;
  let replaced = false;
  for (const [index, name] of names.entries()) {
    if (!exists(path.join(folder, name))) {
      const equal = namesIn(folder).filter((entry) => entry.normalize('NFC') === name.normalize('NFC'));
      // None: nothing below exists to be opened in its place. Several: the server refuses the path.
      if (equal.length !== 1) return replaced ? path.join(folder, ...names.slice(index)) : undefined;
      folder = path.join(folder, equal[0] as string);
      replaced = true;
    } else {
      folder = path.join(folder, name);
    }
  }
  return replaced ? folder : undefined;
}

function exists(place: string): boolean {
  try {
    lstatSync(place);
    return true;
  } catch {
    return false;
  }
}

function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
