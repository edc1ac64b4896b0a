import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolApprovalRequest } from './approval-types.js';
import type { RememberedApproval } from './create-confirm.js';
import { normalizePath } from './normalize-path.js';
import type { PolicyRuleObject, RuleMatch } from './rule-types.js';

export interface RememberKey {
  readonly id: string;
  readonly entry: Omit<RememberedApproval, 'session' | 'scope' | 'mode'>;
  /** The allow rule matching what the key matches (for any agent: a rule names none), or undefined where no rule can say exactly that. */
  readonly rule: Pick<PolicyRuleObject, 'tool' | 'match' | 'tests'> | undefined;
}

/**
 * Remembered approvals are keyed (within the session that asked, which the
 * controller keeps them under) by the tool, the agent and the resolved
 * action the approver saw — never by its spelling or its masked display:
 * - a command by its exact argv, with its working directory's real path, the executable and,
 *   where the host resolved them, where its argument paths really lead and what the
 *   files among them hold (their content stamps), which no rule says: such a command is
 *   never persisted;
 * - files by their exact real paths;
 * - HTTP by method, origin (scheme, host, port) and path, with the action digest standing for the
 *   whole request (query, headers, body);
 * - an MCP tool by server and tool, with the action digest standing for its arguments.
 * Anything else that shows a governed action (a search, whose query is what
 * leaves; an OS action) is keyed by its action digest, so only the identical
 * call is approved again. A call with a masked part is never keyed at all:
 * what was approved before could not be told apart from it.
 */
export function rememberKey(request: ToolApprovalRequest): RememberKey | undefined {
  const action = request.resolved;
  if (request.action === undefined || request.masked > 0 || action === undefined) return undefined;
  const tool = request.toolName.split('@')[0] ?? request.toolName;
  const agent = request.agent;
  // `bound`: what the key also holds and no one is shown (the content stamps of a command's argument files).
  const key = (kind: RememberedApproval['kind'], value: string, also: RememberedApproval['also'], rule: RememberKey['rule'], bound?: string): RememberKey => ({
    id: JSON.stringify([request.toolName, agent ?? null, kind, value, also ?? null, ...(bound === undefined ? [] : [bound])]),
    entry: { tool, agent, kind, value, ...(also === undefined ? {} : { also }) },
    rule,
  });
  const byDigest = (): RememberKey => key('digest', request.actionDigest, undefined, undefined);
  if (action.search !== undefined || action.os !== undefined) return byDigest();
  if (action.mcp !== undefined) {
    const { server, tool: mcpTool } = action.mcp;
    return mcpTool === undefined ? byDigest() : key('mcp', JSON.stringify([server, mcpTool]), { digest: request.actionDigest }, undefined);
  }
  if (action.command !== undefined) {
    const { argv, cwd, executable, arguments: argumentPaths } = action.command;
    // `cat notes.txt` approved reads another file once notes.txt is a link to it: where each argument leads is part of the key.
    const also = { path: cwd.real, ...(executable === undefined ? {} : { executable }), ...(argumentPaths === undefined ? {} : { arguments: JSON.stringify(argumentPaths.map((path) => path.real)) }) };
    // `sh run.sh` approved runs what run.sh held then: once its bytes change, the approval no longer stands in for it.
    const stamps = argumentPaths?.some((path) => path.contentStamp !== undefined) === true ? JSON.stringify(argumentPaths.map((path) => path.contentStamp ?? null)) : undefined;
    // An exact argv allow matches only at the workspace root with argument paths through no link (evaluate-rules.ts):
    // a command run elsewhere, or naming a link, is remembered but not persisted.
    // An argv rule has no empty element (`echo ""`): such a command is remembered, not persisted.
    // Nor can a rule say what an argument file held: one naming a file is remembered with its stamps, and not persisted,
    // or the next start would run whatever an edit wrote into run.sh since.
    const persistable = cwd.real === '.' && action.files.length === 0 && argumentPaths?.some((path) => path.linkTraversal) !== true && !argv.includes('') && stamps === undefined;
    return key('argv', JSON.stringify(argv), also, persistable ? exactArgvRule(tool, argv) : undefined, stamps);
  }
  if (action.http !== undefined) {
    const { method, scheme, host, port, path } = action.http;
    // What leaves is the query, the headers and the body as much as the URL's path: only the identical request is
    // approved again. No rule says that: an HTTP approval is remembered, never persisted.
    return key('http', JSON.stringify([method, `${scheme}://${host}:${port}`, path]), { digest: request.actionDigest }, undefined);
  }
  if (action.files.length > 0) return filesKey(action, tool, key);
  return byDigest();
}

function filesKey(action: ResolvedAction, tool: string, key: (kind: RememberedApproval['kind'], value: string, also: RememberedApproval['also'], rule: RememberKey['rule']) => RememberKey): RememberKey {
  const reals = action.files.map((file) => file.real);
  const only = reals.length === 1 ? (reals[0] as string) : undefined;
  const glob = only === undefined ? undefined : exactPathGlob(only);
  return key('path', only ?? JSON.stringify(reals), undefined, glob === undefined ? undefined : { tool, match: { path: glob } });
}

/**
 * An argv rule that matches exactly this argv: `exact: true`, so a `*` the
 * person approved is a literal asterisk, never a glob. With a `*` in it the
 * rule also carries a counter-example that only a glob would match, so a
 * reader that ignores the flag refuses to load the rule instead of widening it.
 */
function exactArgvRule(tool: string, argv: readonly string[]): RememberKey['rule'] {
  const match: RuleMatch = { argv: [...argv], exact: true };
  if (!argv.some((element) => element.includes('*'))) return { tool, match };
  return { tool, match, tests: { match: [[...argv]], notMatch: [argv.map((element) => element.replaceAll('*', 'x'))] } };
}

/**
 * A glob matching exactly this real path (every ASCII character but a
 * letter, a digit, `/`, `.`, `_` and `-` escaped, a relative path anchored
 * with `./`), or undefined where a rule would read it as another path: a
 * rule file trims its patterns (outer spaces), and rules read a path as
 * `normalizePath` does, where a backslash is a separator (`src\index.ts`
 * would be `src/index.ts`) and a workspace folder named `~` or `C:` is the
 * home or a drive (`~/notes.txt` would be the home's).
 *
 * Escaping only the characters known to be glob syntax was not enough: the
 * rule's glob parser also reads `|` as an alternation and drops `"` as a
 * quote, so `drafts/today|run.sh` became a rule for `run.sh` too and
 * `"deploy.sh` one for `deploy.sh`. A backslash makes any ASCII character
 * literal to it, so nothing is left for it to read as syntax.
 */
function exactPathGlob(path: string): string | undefined {
  const normal = normalizePath(path);
  if (normal === undefined || normal.path !== path || normal.absolute !== path.startsWith('/') || path.trim() !== path) return undefined;
  const escaped = path.replace(/[^A-Za-z0-9/._\u0080-\uffff-]/g, '\\$&');
  return normal.absolute ? escaped : `./${escaped}`;
}
