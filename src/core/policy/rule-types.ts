import type { CommandPattern } from './match-command-pattern.js';
import type { RegexProgram } from './regex-program.js';

/** Where a rule came from. Managed rules sit in a band above every other source. */
export type RuleSource = 'managed' | 'project' | 'user' | 'session' | 'cli';
export type RuleDecision = 'allow' | 'ask' | 'deny';

/**
 * What a rule matches beyond the tool name (absent: every call of the tool).
 * - `argv`: element patterns (`*` within an element; a final `*` = any rest),
 *   or a string split on runs of spaces. With `exact: true` every element is
 *   literal, `*` included (what an "always" approval of a command writes), and
 *   an allow matches only the command run at the workspace root whose argument
 *   paths cross no symlink: the command the person was shown.
 * - `path`: a gitignore-style glob, relative to the workspace, read as
 *   picomatch reads it (`dot: true`) and matched by an automaton in time
 *   proportional to the path times the glob (`compile-path-glob.ts`).
 * - `domain`: an exact FQDN or `*.` + FQDN.
 * - `server`: an MCP server name.
 * - `argsPattern`: a regular expression over the canonical JSON arguments.
 * - `command`: a Claude Code command pattern (what `Bash(…)` holds), matched
 *   against the shell-quoted argv (`match-command-pattern.ts`).
 * - `shellArgsPattern`: a regular expression as Gemini CLI writes it for its
 *   shell tool, over its stable JSON of `{ command, dir_path }` with the
 *   shell-quoted argv as the command (imported Gemini CLI shell rules).
 */
export type RuleMatch =
  | { readonly argv: string | readonly string[]; readonly exact?: boolean }
  | { readonly path: string }
  | { readonly domain: string }
  | { readonly server: string }
  | { readonly argsPattern: string }
  | { readonly command: string }
  | { readonly shellArgsPattern: string };

/** An example for a rule's self-test: a command, path, domain, server or arguments JSON. */
export type RuleExample = string | readonly string[];

export interface PolicyRuleObject {
  /** A toolgate tool name, a Claude Code tool name (`Bash`), `*`, a `prefix*` wildcard, or for a deny or ask a Claude Code tool-name glob (`B*`, `mcp__github__get_*`). */
  readonly tool: string;
  readonly decision: RuleDecision;
  readonly match?: RuleMatch;
  /** Higher wins; default 0. Compared within a band. */
  readonly priority?: number;
  readonly source: RuleSource;
  readonly reason?: string;
  /** Stable id for audit; default derived from the source and position. */
  readonly id?: string;
  /** Imported Claude Code rules share one band whatever their scope (a deny anywhere wins). */
  readonly band?: 'claude-code';
  /** Examples checked when the rule loads; a rule failing its own examples refuses to load. */
  readonly tests?: { readonly match?: readonly RuleExample[]; readonly notMatch?: readonly RuleExample[] };
}

/** A rule in string form (`Bash(npm run test:*)`) with its decision and source. */
export interface PolicyRuleString {
  readonly rule: string;
  readonly decision: RuleDecision;
  readonly source: RuleSource;
  readonly priority?: number;
  readonly band?: 'claude-code';
  readonly id?: string;
  readonly reason?: string;
}

export type PolicyRule = PolicyRuleObject | PolicyRuleString;

export type CompiledMatch =
  | { readonly kind: 'any' }
  /** `rooted`: an exact allow, which matches only at the workspace root with argument paths through no link. */
  | { readonly kind: 'argv'; readonly pattern: readonly string[]; readonly rooted?: true }
  | { readonly kind: 'path'; readonly glob: string; readonly test: (path: string) => boolean }
  | { readonly kind: 'domain'; readonly host: string; readonly subdomains: boolean }
  | { readonly kind: 'server'; readonly server: string }
  /** `program`: the pattern over the arguments' canonical JSON, as an automaton run in time proportional to it. */
  | { readonly kind: 'args'; readonly program: RegexProgram }
  | { readonly kind: 'command'; readonly pattern: CommandPattern }
  /** `program`: the pattern as an automaton (`compile-regex-program.ts`), run in time proportional to the text. */
  | { readonly kind: 'shell-args'; readonly program: RegexProgram };

/** A rule ready to evaluate. */
export interface CompiledRule {
  readonly id: string;
  readonly source: RuleSource;
  readonly decision: RuleDecision;
  /** Exact tool names this rule covers, or a predicate for wildcards. */
  readonly tools: (name: string) => boolean;
  /**
   * For `mcp__server`: the server named. Its tool names are a prefix (`mcp_github_`), which another server's
   * tools can share (`github_mirror`): a call whose target names a server is covered only by its own.
   */
  readonly server?: string;
  readonly match: CompiledMatch;
  readonly priority: number;
  /** 1 for the managed band, 0 otherwise. */
  readonly band: number;
  /**
   * A Read or Edit deny or ask of a path imported from Claude Code, which
   * Claude Code also applies to the file commands it recognizes in Bash: it
   * reaches a command that runs one and reads the paths its arguments name
   * (`RuleSubject.fileArguments`). Set for no other rule.
   */
  readonly fileCommands?: true;
  readonly reason: string | undefined;
  /** How the rule reads in `explain` (its string form or a summary). */
  readonly display: string;
  /** The frozen audit record a decision lists for this rule. */
  readonly matched: { readonly id: string; readonly source: RuleSource; readonly decision: RuleDecision; readonly rule: string };
}
