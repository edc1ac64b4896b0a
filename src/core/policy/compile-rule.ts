import { canonicalHost, matchDomain, parseDomainPattern, parseHttpsTarget } from './canonical-host.js';
import { foldMcpNamePart, mcpToolName } from '../names/mcp-tool-name.js';
import { isToolName } from '../names/tool-name.js';
import { claudeSpecifierKind, toolgateNamesFor } from './claude-tool-names.js';
import { claudeToolGlob } from './claude-tool-glob.js';
import { exactArgvPattern, matchArgvPattern } from './match-argv-pattern.js';
import { CommandLines, compileCommandPattern, matchCommandPattern } from './match-command-pattern.js';
import { compilePathGlob } from './compile-path-glob.js';
import { compileRegexProgram, RegexProgramError } from './compile-regex-program.js';
import { runRegexProgram } from './run-regex-program.js';
import { geminiStableJson } from './gemini-stable-json.js';
import { quoteArgv } from './quote-argv.js';
import { normalizePath } from './normalize-path.js';
import { PolicyRuleError } from './policy-rule-error.js';
import { realPathGlob, type RealPath } from './real-path-glob.js';
import { gitignoreGlob, withChildren } from './protected-paths.js';
import type { CompiledMatch, CompiledRule, PolicyRule, PolicyRuleObject, RuleDecision, RuleExample, RuleMatch, RuleSource } from './rule-types.js';
import { splitCommand } from './split-command.js';

/** `mcp__server`: every tool of one MCP server (the server ends at the name, not at a `__`). */
const MCP_SERVER_RULE = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)$/;

const SOURCES: readonly RuleSource[] = ['managed', 'project', 'user', 'session', 'cli'];
const DECISIONS: readonly RuleDecision[] = ['allow', 'ask', 'deny'];

/**
 * Compile one rule (string or object form) and run its self-tests. Throws
 * `PolicyRuleError` naming the rule: a malformed rule or one failing its own
 * examples never loads.
 */
export function compileRule(rule: PolicyRule, position: number, options: { readonly home?: string | undefined; readonly realPath?: RealPath | undefined } = {}): CompiledRule {
  if (typeof rule !== 'object' || rule === null) throw new PolicyRuleError(`#${position}`, 'invalid_rule', 'must be an object');
  const source = rule.source;
  const id = typeof rule.id === 'string' && rule.id.length > 0 ? rule.id : `${String(source)}#${position}`;
  const fail = (problem: ConstructorParameters<typeof PolicyRuleError>[1], text: string): never => {
    throw new PolicyRuleError(id, problem, text);
  };
  if (!SOURCES.includes(source)) fail('invalid_rule', `has an unknown source (one of ${SOURCES.join(', ')})`);
  if (!DECISIONS.includes(rule.decision)) fail('invalid_rule', 'has an unknown decision (allow, ask or deny)');
  const priority = rule.priority ?? 0;
  if (!Number.isFinite(priority)) fail('invalid_rule', 'has a non-finite priority');
  const object = 'rule' in rule ? parseRuleString(rule.rule, id) : rule;
  const tools = compileToolMatcher(object.tool, rule.decision, fail);
  const match = compileMatch(object.match, rule.decision, fail, options);
  const display = 'rule' in rule ? rule.rule : displayRule(object);
  // Claude Code applies its Read and Edit path denies and asks to the file commands it recognizes in Bash too
  // (`file-command-paths.ts`); toolgate's own rules, and allows, keep matching a command as before. A `Read` with
  // no path reads nothing at all, so it reaches every file command; an `Edit` with none keeps to the file tools,
  // or it would refuse every `cat` and `grep` of an agent that may read and not write.
  const fileCommands =
    rule.band === 'claude-code' &&
    rule.decision !== 'allow' &&
    ((match.kind === 'path' && (object.tool === 'Read' || object.tool === 'Edit')) || (match.kind === 'any' && object.tool === 'Read'));
  const compiled: CompiledRule = Object.freeze({
    id,
    source,
    decision: rule.decision,
    tools,
    ...serverOf(object.tool),
    match,
    priority,
    band: source === 'managed' && rule.band !== 'claude-code' ? 1 : 0,
    ...(fileCommands ? { fileCommands: true as const } : {}),
    reason: typeof rule.reason === 'string' ? rule.reason : undefined,
    display,
    matched: Object.freeze({ id, source, decision: rule.decision, rule: display }),
  });
  if ('tests' in rule && rule.tests !== undefined) runSelfTests(compiled, rule.tests, fail);
  return compiled;
}

/** `Bash(npm run test:*)`, `Read(./src/**)`, `WebFetch(domain:x)`, `mcp__github__create_issue`, `<tool name>(argv:git status)`. */
export function parseRuleString(text: string, id: string): Pick<PolicyRuleObject, 'tool' | 'match'> {
  if (typeof text !== 'string') throw new PolicyRuleError(id, 'invalid_rule', 'must be a string rule');
  const parsed = /^([A-Za-z0-9_*-]+)(?:\((.*)\))?$/s.exec(text.trim());
  if (parsed === null) throw new PolicyRuleError(id, 'invalid_rule', 'is not of the form Tool or Tool(specifier)');
  const tool = parsed[1] as string;
  const specifier = parsed[2];
  if (specifier === undefined || specifier === '' || specifier === '*') return { tool };
  const mcpServer = MCP_SERVER_RULE.exec(tool);
  if (mcpServer !== null) throw new PolicyRuleError(id, 'invalid_rule', 'an MCP server rule takes no specifier');
  const kind = claudeSpecifierKind(tool);
  if (kind === 'argv') return { tool, match: { command: specifier } };
  if (kind === 'path') return { tool, match: { path: claudePathPattern(specifier) } };
  if (kind === 'domain') {
    if (!specifier.startsWith('domain:')) throw new PolicyRuleError(id, 'invalid_pattern', 'WebFetch takes domain:<host>');
    return { tool, match: { domain: specifier.slice('domain:'.length) } };
  }
  if (kind === 'query') throw new PolicyRuleError(id, 'invalid_pattern', 'WebSearch specifiers are not supported');
  if (!isToolName(tool)) throw new PolicyRuleError(id, 'unknown_tool', 'names a tool that has no toolgate equivalent');
  const prefixed = /^(argv|path|domain|server):(.*)$/s.exec(specifier);
  if (prefixed === null) throw new PolicyRuleError(id, 'invalid_pattern', 'needs a kind prefix (argv:, path:, domain: or server:)');
  const value = prefixed[2] as string;
  switch (prefixed[1]) {
    case 'argv':
      return { tool, match: { argv: claudeBashPattern(value) } };
    case 'path':
      return { tool, match: { path: value } };
    case 'domain':
      return { tool, match: { domain: value } };
    default:
      return { tool, match: { server: value } };
  }
}

/** `npm run test:*` and `npm run test *` are prefix rules; anything else is exact elements. */
function claudeBashPattern(specifier: string): readonly string[] {
  const prefix = specifier.endsWith(':*') ? specifier.slice(0, -2) : undefined;
  const argv = [...splitCommand(prefix ?? specifier)];
  return prefix === undefined ? argv : [...argv, '*'];
}

/** Claude Code path forms: `//abs` absolute, `~/` home, `./x` and `x` workspace-relative. */
function claudePathPattern(specifier: string): string {
  if (specifier.startsWith('//')) return specifier.slice(1);
  return specifier;
}

/** `mcp__server` (every tool of one server) names that server: a call whose target is another server is not covered. */
function serverOf(tool: string): { readonly server?: string } {
  const mcpServer = typeof tool === 'string' ? MCP_SERVER_RULE.exec(tool) : null;
  return mcpServer === null ? {} : { server: foldMcpNamePart(mcpServer[1] as string) };
}

function compileToolMatcher(tool: string, decision: RuleDecision, fail: (problem: 'unknown_tool' | 'invalid_pattern', text: string) => never): (name: string) => boolean {
  if (typeof tool !== 'string' || tool.length === 0) return fail('unknown_tool', 'has no tool');
  if (tool === '*') return () => true;
  const mcpServer = MCP_SERVER_RULE.exec(tool);
  if (mcpServer !== null) {
    const prefix = mcpToolName(mcpServer[1] as string, '');
    const literal = `${tool}__`;
    return (name) => name.startsWith(prefix) || name.startsWith(literal);
  }
  // A deny or ask of a Claude Code tool-name glob (`B*`, `mcp__github__get_*`) is read as Claude Code reads it; as a
  // prefix of toolgate names an MCP one would match no tool, and its server's tools would run.
  const claudeGlob = decision !== 'allow' && tool.includes('*');
  if (tool.endsWith('*') && isToolName(tool.slice(0, -1)) && !(claudeGlob && tool.startsWith('mcp__'))) {
    const prefix = tool.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  if (claudeGlob) {
    try {
      return claudeToolGlob(tool, decision) ?? fail('unknown_tool', 'names its tools by a glob that holds a character no tool name has');
    } catch (error) {
      if (error instanceof RegexProgramError) return fail('invalid_pattern', `names its tools by a glob toolgate cannot load (${error.message})`);
      throw error;
    }
  }
  const names = isToolName(tool) && !tool.startsWith('mcp__') ? [tool] : toolgateNamesFor(tool, decision);
  if (names === undefined) return fail('unknown_tool', 'names a tool that has no toolgate equivalent');
  const set = new Set(names);
  return (name) => set.has(name);
}

function compileMatch(
  match: RuleMatch | undefined,
  decision: RuleDecision,
  fail: (problem: 'invalid_pattern', text: string) => never,
  { home, realPath }: { readonly home?: string | undefined; readonly realPath?: RealPath | undefined },
): CompiledMatch {
  if (match === undefined) return { kind: 'any' };
  if (typeof match !== 'object' || match === null) return fail('invalid_pattern', 'has a match that is not an object');
  const exact: unknown = 'exact' in match ? match.exact : undefined;
  if ('argv' in match) {
    const pattern: readonly unknown[] | undefined = typeof match.argv === 'string' ? splitCommand(match.argv) : isList(match.argv) ? match.argv : undefined;
    if (pattern === undefined || pattern.length === 0 || pattern.some((element) => typeof element !== 'string' || element.length === 0)) {
      return fail('invalid_pattern', 'has an empty or malformed argv pattern');
    }
    if (exact !== undefined && typeof exact !== 'boolean') return fail('invalid_pattern', 'has an argv "exact" flag that is not true or false');
    const elements = pattern.map(String);
    if (exact !== true) return { kind: 'argv', pattern: Object.freeze(elements) };
    // An exact allow stands for one command as a person approved it; a deny or ask still matches it anywhere.
    return decision === 'allow' ? { kind: 'argv', pattern: exactArgvPattern(elements), rooted: true } : { kind: 'argv', pattern: exactArgvPattern(elements) };
  }
  // `exact` is an argv flag only: on another kind it would promise an exactness the pattern does not have.
  if (exact !== undefined) return fail('invalid_pattern', 'has an "exact" flag, which only an argv match takes');
  if ('path' in match) {
    if (typeof match.path !== 'string' || match.path.trim().length === 0) return fail('invalid_pattern', 'has an empty path pattern');
    const glob = match.path.startsWith('/') || match.path.startsWith('~/') ? match.path : gitignoreGlob(match.path);
    // A deny or ask also catches case variants (case-insensitive filesystems) and, as gitignore does, everything
    // inside a folder it names (`Read(secrets)` covers `secrets/key`); an allow never widens that way.
    const widen = (pattern: string): string => (decision === 'allow' ? pattern : withChildren(pattern));
    // `~/` names the home directory when it is known; a deny or ask also keeps matching the literal spelling.
    const atHome = glob.startsWith('~/') && home !== undefined ? `${home.replace(/\/+$/, '')}/${glob.slice(2)}` : undefined;
    const spelled = atHome === undefined ? [glob] : decision === 'allow' ? [atHome] : [atHome, glob];
    // A deny or ask of an absolute path also names the file where its folders really lead (a home or a folder that
    // is a link): a call's path is judged as it really is. An allow keeps reaching only what it spells.
    const real = decision === 'allow' || realPath === undefined ? [] : spelled.flatMap((pattern) => realPathGlob(pattern, realPath) ?? []);
    const globs = [...spelled, ...real].map(widen);
    // Picomatch's reading of each glob, run as an automaton: a model-chosen path costs its length times the glob's.
    const programs = globs.map((pattern) => {
      try {
        return compilePathGlob(pattern, decision !== 'allow').program;
      } catch (error) {
        if (error instanceof RegexProgramError) return fail('invalid_pattern', `has a path pattern toolgate cannot load (${error.message})`);
        throw error;
      }
    });
    const test = (candidate: string): boolean => programs.some((program) => runRegexProgram(program, candidate));
    return { kind: 'path', glob: atHome ?? glob, test };
  }
  if ('domain' in match) {
    const pattern = parseDomainPattern(match.domain);
    if (pattern === undefined) return fail('invalid_pattern', 'has a domain that is not a host name or *.host');
    return { kind: 'domain', ...pattern };
  }
  if ('server' in match) {
    if (typeof match.server !== 'string' || match.server.length === 0) return fail('invalid_pattern', 'has an empty server name');
    return { kind: 'server', server: match.server };
  }
  if ('command' in match) {
    if (typeof match.command !== 'string' || match.command.trim().length === 0) return fail('invalid_pattern', 'has an empty command pattern');
    return { kind: 'command', pattern: compileCommandPattern(match.command, decision) };
  }
  if ('shellArgsPattern' in match) {
    try {
      // Gemini CLI compiles its patterns without flags; so does this, so each one means what it meant there.
      new RegExp(match.shellArgsPattern);
    } catch {
      return fail('invalid_pattern', 'has a shellArgsPattern that is not a valid regular expression');
    }
    // Run as an automaton: a command costs its length times the pattern's. Run by backtracking, a pattern such as
    // `(a|a)*X` cost 2^n steps for n `a`s, and one call held the gateway's thread.
    try {
      return { kind: 'shell-args', program: compileRegexProgram(match.shellArgsPattern, '') };
    } catch (error) {
      if (error instanceof RegexProgramError) return fail('invalid_pattern', `has a shellArgsPattern toolgate cannot match in time proportional to the command (${error.message})`);
      throw error;
    }
  }
  if ('argsPattern' in match) {
    try {
      new RegExp(match.argsPattern);
    } catch {
      return fail('invalid_pattern', 'has an argsPattern that is not a valid regular expression');
    }
    // Run as an automaton over the arguments' JSON, as a shell pattern is: a deny or ask a repository's
    // `.toolgate/policy.json` ships loads untrusted, and run by backtracking, `(a|a)*X` held the gateway's thread for
    // as long as a model's argument of `a`s made it. Read as JavaScript reads it without flags, one UTF-16 unit at a
    // time, as the automaton does (a `.` is one unit of a character past U+FFFF); `\p{…}` and `\u{…}`, which mean
    // something else without the `u` flag, are refused rather than read otherwise.
    if (/\\(?:[pP]\{|u\{)/.test(match.argsPattern)) return fail('invalid_pattern', 'has an argsPattern with a Unicode property or code point escape, which it reads only with the u flag');
    try {
      return { kind: 'args', program: compileRegexProgram(match.argsPattern, '') };
    } catch (error) {
      if (error instanceof RegexProgramError) return fail('invalid_pattern', `has an argsPattern toolgate cannot match in time proportional to the arguments (${error.message})`);
      throw error;
    }
  }
  return fail('invalid_pattern', 'has a match with no known key (argv, command, path, domain, server, argsPattern, shellArgsPattern)');
}

/** Whether an example (a command, path, domain or URL, server, or arguments JSON) matches. */
export function matchExample(match: CompiledMatch, example: RuleExample): boolean {
  const text = typeof example === 'string' ? example : example.join(' ');
  switch (match.kind) {
    case 'any':
      return true;
    case 'argv':
      return matchArgvPattern(match.pattern, splitCommand(example));
    case 'path': {
      const path = normalizePath(text);
      return path !== undefined && match.test(path.relative ?? path.path);
    }
    case 'domain': {
      const host = text.includes('://') ? parseHttpsTarget(text) : undefined;
      const canonical = host === undefined ? canonicalHost(text) : host.ok ? host.host : undefined;
      return canonical !== undefined && matchDomain(match, canonical);
    }
    case 'server':
      return text === match.server;
    case 'args':
      return runRegexProgram(match.program, text);
    case 'command':
      return matchCommandPattern(match.pattern, new CommandLines(splitCommand(example)), 'allow');
    case 'shell-args':
      return runRegexProgram(match.program, geminiStableJson({ command: quoteArgv(splitCommand(example)) }));
  }
}

function runSelfTests(rule: CompiledRule, tests: NonNullable<PolicyRuleObject['tests']>, fail: (problem: 'rule_test_failed', text: string) => never): void {
  for (const [index, example] of (tests.match ?? []).entries()) {
    if (!matchExample(rule.match, example)) fail('rule_test_failed', `does not match its own example tests.match[${index}]`);
  }
  for (const [index, example] of (tests.notMatch ?? []).entries()) {
    if (matchExample(rule.match, example)) fail('rule_test_failed', `matches its own counter-example tests.notMatch[${index}]`);
  }
}

function displayRule(rule: Pick<PolicyRuleObject, 'tool' | 'match'>): string {
  const match = rule.match;
  if (match === undefined) return rule.tool;
  if ('argv' in match) {
    const exact = 'exact' in match && match.exact === true;
    return `${rule.tool}(${exact ? 'exact argv' : 'argv'}:${typeof match.argv === 'string' ? match.argv : match.argv.join(' ')})`;
  }
  const [key, value] = Object.entries(match)[0] ?? ['', ''];
  return `${rule.tool}(${key}:${Array.isArray(value) ? (value as string[]).join(' ') : String(value)})`;
}

/** `Array.isArray` narrowed without `any`. */
export function isList(value: unknown): value is readonly unknown[] {
  return Array.isArray(value);
}
