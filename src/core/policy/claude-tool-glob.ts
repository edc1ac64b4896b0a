import { MAX_MCP_TOOL_NAME } from '../names/mcp-tool-name.js';
import { claudeToolNames, toolgateNamesFor } from './claude-tool-names.js';
import { compileRegexProgram } from './compile-regex-program.js';
import type { RuleDecision } from './rule-types.js';
import { runRegexProgram } from './run-regex-program.js';

/** What Claude Code takes in the tool-name position of a rule: letters, digits, `_`, `-` and the wildcard `*`. */
const GLOB_CHARACTERS = /^[A-Za-z0-9_*-]+$/;

/**
 * The tools a deny or ask whose Claude Code tool name is a glob covers
 * (`B*`, `Web*`, `*delete*`, `mcp__*__drop*`), as a test of toolgate names:
 * each Claude Code tool the glob matches, read in any case, under every
 * toolgate name its rules cover, and the MCP tools it matches
 * (`claudeMcpToolGlob`). Undefined when the glob holds a character no tool
 * name has; throws `RegexProgramError` for one too large to load.
 */
export function claudeToolGlob(glob: string, decision: RuleDecision): ((name: string) => boolean) | undefined {
  const mcp = claudeMcpToolGlob(glob);
  if (mcp === undefined) return undefined;
  const claudeName = compileRegexProgram(`^${glob.split('*').join('.*')}$`, 'i');
  const covered = new Set(claudeToolNames().filter((name) => runRegexProgram(claudeName, name)).flatMap((name) => toolgateNamesFor(name, decision) ?? []));
  return (name) => covered.has(name) || mcp(name);
}

/**
 * The upstream MCP tools a Claude Code tool-name glob of a deny or ask
 * covers (`mcp__github__get_*`, `mcp__*__drop*`), as a test of toolgate
 * names. Claude Code matches the glob against its whole name,
 * `mcp__server__tool`; toolgate knows the tool by its folded name
 * (`mcpToolName`: `mcp_github_get_issue`), where each separator `__` is one
 * `_` and `-` is `_`. So each literal part is lowercased and read against the
 * folded name: a run of `_` or `-` in it matches any run of `_`, and one at
 * the edge of a part, where a `-` may fold into its neighbour's run, may be
 * absent. A name clipped to its 64 characters is matched by the glob's
 * leading part alone. Each of these only widens what the deny or ask covers.
 * Matched by an automaton, so a glob of many wildcards costs a name its
 * length times the glob's. Undefined when the glob holds a character no tool
 * name has; throws `RegexProgramError` for one too large to load.
 */
export function claudeMcpToolGlob(glob: string): ((name: string) => boolean) | undefined {
  if (!GLOB_CHARACTERS.test(glob)) return undefined;
  const parts = glob.toLowerCase().split('*').map(foldedPart);
  const whole = compileRegexProgram(`^${parts.join('.*')}$`, '');
  const clipped = compileRegexProgram(`^${parts[0] ?? ''}`, '');
  return (name) => name.startsWith('mcp_') && (runRegexProgram(whole, name) || (name.length === MAX_MCP_TOOL_NAME && runRegexProgram(clipped, name)));
}

/** One literal part of a glob as a pattern over folded names. */
function foldedPart(part: string): string {
  return part.replace(/[_-]+/g, (run, offset: number) => {
    const atEdge = offset === 0 || offset + run.length === part.length;
    return atEdge && run.includes('-') ? '_*' : '_+';
  });
}
