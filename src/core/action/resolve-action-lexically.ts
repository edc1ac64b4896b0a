import { canonicalHost } from '../policy/canonical-host.js';
import { normalizePath } from '../policy/normalize-path.js';
import { splitCommand } from '../policy/split-command.js';
import type { PolicyTarget, ToolPolicyClass } from '../tools/tool-types.js';
import type { ResolvedAction, ResolvedHttp, ResolvedPath } from './resolved-action.js';

/**
 * The resolved action from the target's spelling alone, for engines without
 * a resolving host: paths normalised (both separators, `.` and `..` folded),
 * the command split exactly as it will be spawned, the URL parsed by the
 * WHATWG parser. Nothing touches a disk, so a symlink is invisible here;
 * the host's `resolve` is what sees it.
 */
export function resolveActionLexically(target: PolicyTarget, policy: Pick<ToolPolicyClass, 'fsWrite'>): ResolvedAction {
  return actionAround(target, policy, targetPaths(target).map(lexicalPath), commandArgv(target));
}

/**
 * The action a target names, around its file targets as they were resolved
 * (one per path of `targetPaths`, in order: lexically, or by a host, which
 * is then never asked to resolve a spelling it is about to replace). A
 * command runs in its first file target when `path` names one; a `path`
 * that is not a string names no file (the floor refuses it), and the
 * command then runs at the root as spelled.
 */
export function actionAround(target: PolicyTarget, policy: Pick<ToolPolicyClass, 'fsWrite'>, files: readonly ResolvedPath[], argv: readonly string[] | undefined): ResolvedAction {
  const action: { -readonly [K in keyof ResolvedAction]: ResolvedAction[K] } = { resolvedBy: 'lexical', access: accessOf(policy), files };
  if (argv !== undefined) {
    const cwd = typeof target.path === 'string' ? (files[0] as ResolvedPath) : lexicalPath('.');
    action.command = { argv, executable: undefined, cwd };
  }
  if (typeof target.url === 'string') {
    const http = resolveHttp(target.url, target.method);
    if (http !== undefined) action.http = http;
  }
  if (typeof target.server === 'string') {
    action.mcp = { server: target.server, tool: typeof target.mcpTool === 'string' ? target.mcpTool : undefined, arguments: target.mcpArguments ?? {} };
  }
  if (target.os !== undefined) action.os = target.os.text === undefined ? { action: target.os.action } : { action: target.os.action, text: target.os.text };
  if (typeof target.query === 'string') action.search = { query: target.query, host: action.http?.host };
  return action;
}

/** Whether the file targets are written or only read. */
export function accessOf(policy: Pick<ToolPolicyClass, 'fsWrite'>): ResolvedAction['access'] {
  return policy.fsWrite === true ? 'write' : 'read';
}

/** The target's command split exactly as it will be spawned, frozen; undefined when it names none. */
export function commandArgv(target: PolicyTarget): readonly string[] | undefined {
  return target.command === undefined ? undefined : Object.freeze(splitCommand(target.command));
}

/** Where a command runs, as spelled: its `path` when that is a string, else the workspace root. */
export function commandCwdSpelling(target: PolicyTarget): string {
  return typeof target.path === 'string' ? target.path : '.';
}

/** The paths a target names, in order: `path` first, then `paths`. Non-strings are left to the floor, which refuses them. */
export function targetPaths(target: PolicyTarget): readonly string[] {
  const paths: string[] = [];
  if (typeof target.path === 'string') paths.push(target.path);
  if (Array.isArray(target.paths)) for (const entry of target.paths as readonly unknown[]) if (typeof entry === 'string') paths.push(entry);
  return paths;
}

/** One path as spelled: inside unless it is absolute or climbs out, since only a host knows where the workspace is. */
export function lexicalPath(requested: string): ResolvedPath {
  const normal = normalizePath(requested);
  const path = normal === undefined ? requested : normal.escapes ? climbing(requested) : normal.path;
  return {
    requested,
    path,
    real: path,
    protected: false,
    linkTraversal: false,
    outside: normal === undefined || normal.absolute || normal.escapes,
    created: false,
    hardLinked: false,
  };
}

/** A relative path that climbs above its base, with its leading `..` kept (normalizePath drops them). */
function climbing(requested: string): string {
  const segments: string[] = [];
  for (const segment of requested.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && segments.length > 0 && segments[segments.length - 1] !== '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}

function resolveHttp(url: string, method: string | undefined): ResolvedHttp | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  const host = canonicalHost(parsed.hostname) ?? parsed.hostname;
  const port = parsed.port === '' ? (scheme === 'https' ? 443 : scheme === 'http' ? 80 : 0) : Number(parsed.port);
  const query: { key: string; value: string }[] = [];
  parsed.searchParams.forEach((value, key) => query.push({ key, value }));
  return { method: (method ?? 'GET').toUpperCase(), url: parsed.href, scheme, host, port, path: parsed.pathname, query };
}
