import type { ResolvedPath } from '../action/resolved-action.js';
import { canonicalJson } from '../digest/canonical-json.js';
import { matchDomain } from './canonical-host.js';
import { geminiStableJson } from './gemini-stable-json.js';
import { matchArgvPattern } from './match-argv-pattern.js';
import { CommandLines, matchCommandPattern } from './match-command-pattern.js';
import { normalizePath, type NormalizedPath } from './normalize-path.js';
import type { RegexProgram } from './regex-program.js';
import type { CompiledRule, RuleDecision } from './rule-types.js';
import { readRegexProgram, type RegexBudget } from './run-regex-program.js';

/** What rules are matched against: the call's tool and its guardrail target, normalised once. */
export interface RuleSubject {
  readonly tool: string;
  readonly argv: readonly string[] | undefined;
  /** The call's paths, spelled and real; a command's is its working directory. */
  readonly paths: readonly NormalizedPath[];
  /** Where a command's argument paths really lead, as the host resolved them. */
  readonly argumentPaths?: readonly ResolvedPath[] | undefined;
  /**
   * The paths a file command names in its arguments (`fileCommandPaths`);
   * undefined when the call runs none. Only a rule marked `fileCommands`
   * reads them, so no allow and no rule of toolgate's own is widened.
   */
  readonly fileArguments?: readonly NormalizedPath[] | undefined;
  /** Where a command runs, with its spelling (`requested`). */
  readonly cwd?: ResolvedPath | undefined;
  readonly host: string | undefined;
  readonly server: string | undefined;
  readonly args: unknown;
  /**
   * The policy has no workspace roots, so an absolute path cannot be placed
   * against a workspace-anchored pattern (`./secrets/**`). A deny or ask then
   * counts it as matching: fail closed rather than miss it.
   */
  readonly rootless?: boolean;
  /** The workspace roots (absolute): where a path inside one is, spelled whole, for a deny or ask of an absolute path. */
  readonly roots?: readonly string[];
}

export interface RuleVerdict {
  /** The winning decision, or undefined when no rule matched. */
  readonly decision: RuleDecision | undefined;
  readonly winner: CompiledRule | undefined;
  /** Every rule that matched, best first. */
  readonly matched: readonly CompiledRule[];
  /** The winner is a deny or ask of a command that could not be read whole (`CommandLines.cut`), which every deny or ask covers. */
  readonly unread?: true;
  /** The winner is a deny or ask, and an argument pattern could not read the arguments to their end (past the call's steps, or no JSON form): every deny or ask of one covers them. */
  readonly unreadArguments?: true;
}

const NO_VERDICT: RuleVerdict = Object.freeze({ decision: undefined, winner: undefined, matched: Object.freeze([]) });
const STRENGTH: Record<RuleDecision, number> = { deny: 2, ask: 1, allow: 0 };

/**
 * Among the matching rules the highest band wins, then the highest
 * priority; on a tie deny beats ask beats allow.
 */
export function evaluateRules(rules: readonly CompiledRule[], subject: RuleSubject): RuleVerdict {
  if (rules.length === 0) return NO_VERDICT;
  let argsJson: string | undefined;
  let argsRead = false;
  const json = (): string | undefined => {
    argsRead = true;
    return (argsJson ??= safeJson(subject.args));
  };
  const views: SubjectViews = { json, commandLines: subject.argv === undefined ? undefined : new CommandLines(subject.argv), geminiJson: geminiJsonOf(subject), regexBudget: { steps: MAX_REGEX_STEPS } };
  const matched = rules.filter(
    (rule) => rule.tools(subject.tool) && (rule.server === undefined || subject.server === undefined || rule.server === subject.server) && matchesSubject(rule, subject, views),
  );
  matched.sort(compareRules);
  // What a deny or ask reads past the spelling only adds: a rule so matched never outranks a stricter one that matches
  // the command as spelled (a Gemini CLI ask of `rm` above a deny of `push -rf` decided `push -rf rm`, which Gemini
  // CLI itself denies, as an ask).
  const spelled = matched.find((rule) => matchesAsSpelled(rule, subject, views));
  if (spelled !== undefined && spelled !== matched[0] && STRENGTH[spelled.decision] > STRENGTH[(matched[0] as CompiledRule).decision]) {
    matched.splice(matched.indexOf(spelled), 1);
    matched.unshift(spelled);
  }
  const winner = matched[0];
  if (winner !== undefined && winner.decision !== 'allow') {
    const unread = views.commandLines?.cutOnceRead === true;
    const unreadArguments = views.regexBudget.steps <= 0 || (argsJson === undefined && argsRead);
    if (unread || unreadArguments) return { decision: winner.decision, winner, matched, ...(unread ? { unread: true } : {}), ...(unreadArguments ? { unreadArguments: true } : {}) };
  }
  return { decision: winner?.decision, winner, matched };
}

export function compareRules(left: CompiledRule, right: CompiledRule): number {
  return right.band - left.band || right.priority - left.priority || STRENGTH[right.decision] - STRENGTH[left.decision];
}

/** What rules read of the subject beyond its fields, each worked out at most once per evaluation. */
interface SubjectViews {
  /** The arguments' canonical JSON; undefined where they have none (a cycle, a bigint). */
  readonly json: () => string | undefined;
  /** The command's lines, and the argvs a deny or ask also reads (`commandReadings`). */
  readonly commandLines: CommandLines | undefined;
  /** Gemini CLI's stable JSON of a command line of this call, each line's made once however many rules read it. */
  readonly geminiJson: (command: string) => string;
  /** What the argument patterns of every rule may still spend on this call (`MAX_REGEX_STEPS`). */
  readonly regexBudget: RegexBudget;
}

/**
 * The steps the argument patterns of all rules may take on one call, at
 * most: each a live state carried over one character (`readRegexProgram`),
 * some 40 ms of the gateway's thread. Past it a pattern is not read on: a
 * deny or ask counts it as matching, an allow as not (`regexMatch`).
 */
const MAX_REGEX_STEPS = 4_000_000;

/** Whether a rule's argument pattern matches `text`, as `decision` reads one the budget cut short. */
function regexMatch(program: RegexProgram, text: string, decision: RuleDecision, budget: RegexBudget): boolean {
  return readRegexProgram(program, text, budget) ?? decision !== 'allow';
}

function matchesSubject(rule: CompiledRule, subject: RuleSubject, views: SubjectViews): boolean {
  const match = rule.match;
  switch (match.kind) {
    case 'any':
      return true;
    case 'argv': {
      if (subject.argv === undefined || views.commandLines === undefined) return false;
      if (matchArgvPattern(match.pattern, subject.argv)) return match.rooted !== true || runsAsApproved(subject);
      // `git -C . push` is a push, `npm x` is `npm exec`, and `nice rm x` or `setarch x86_64 rm x` runs `rm x`: a deny
      // or ask also sees every command the argv may run, as a command pattern does. An allow never does, so the
      // spelling can only narrow what a call may do.
      if (rule.decision === 'allow') return false;
      return views.commandLines.cut || views.commandLines.readings.some((reading) => matchArgvPattern(match.pattern, reading));
    }
    case 'path': {
      const fileArguments = rule.fileCommands === true ? (subject.fileArguments ?? []) : [];
      if (subject.paths.length === 0 && fileArguments.length === 0) return false;
      const unplaceable = (path: NormalizedPath): boolean => subject.rootless === true && path.absolute && !/^(?:\/|~|\*\*)/.test(match.glob);
      // A pattern that is not absolute names paths inside the workspace: an allow never reads it against a path
      // outside every root (`**`, `./**` or a bare name would match `/etc/passwd` spelled whole). A deny or ask does.
      const anywhere = rule.decision !== 'allow' || /^(?:\/|~)/.test(match.glob);
      // A deny or ask of an absolute path (`//w/secret.txt`, `~/proj/keys/**`) names a file however a call spells it:
      // `secret.txt` in the workspace `/w` is `/w/secret.txt`. Read only as spelled, the relative spelling got past it.
      const placed = rule.decision !== 'allow' && match.glob.startsWith('/');
      const hit = (path: NormalizedPath): boolean =>
        (path.relative !== undefined && match.test(path.relative)) ||
        (anywhere && match.test(path.path)) ||
        (rule.decision !== 'allow' && unplaceable(path)) ||
        (placed && inRoots(path, subject.roots).some(match.test));
      // An allow must cover every path a call touches; a deny or ask needs only one, a file argument's included.
      return rule.decision === 'allow' ? subject.paths.every(hit) : subject.paths.some(hit) || fileArguments.some(hit);
    }
    case 'domain':
      return subject.host !== undefined && matchDomain(match, subject.host);
    case 'server':
      return subject.server === match.server;
    case 'args': {
      // Arguments with no JSON form cannot be read: a deny or ask covers them, an allow does not.
      const text = views.json();
      return text === undefined ? rule.decision !== 'allow' : regexMatch(match.program, text, rule.decision, views.regexBudget);
    }
    case 'command':
      return views.commandLines !== undefined && matchCommandPattern(match.pattern, views.commandLines, rule.decision);
    case 'shell-args':
      return views.commandLines !== undefined && shellArgsMatch(match.program, rule.decision, views);
  }
}

/** Whether a rule matches a command as it is spelled, as the tool it was written for reads it: none of what it may run. */
function matchesAsSpelled(rule: CompiledRule, subject: RuleSubject, views: SubjectViews): boolean {
  const match = rule.match;
  const lines = views.commandLines;
  switch (match.kind) {
    case 'argv':
      return subject.argv !== undefined && matchArgvPattern(match.pattern, subject.argv);
    case 'command':
      return lines !== undefined && !lines.empty && match.pattern.test(lines.quoted);
    case 'shell-args':
      return lines !== undefined && regexMatch(match.program, views.geminiJson(lines.quoted), rule.decision, views.regexBudget);
    default:
      return true;
  }
}

/** A path inside a workspace root, spelled whole from each root (the roots as spelled and as they really are). */
function inRoots(path: NormalizedPath, roots: readonly string[] = []): string[] {
  const relative = path.relative;
  if (relative === undefined) return [];
  return roots.flatMap((root) => {
    const base = normalizePath(root)?.path;
    if (base === undefined) return [];
    return relative === '.' ? [base] : [`${base.endsWith('/') ? base : `${base}/`}${relative}`];
  });
}

/**
 * Whether a command is the one an exact allow was written for: run at the
 * workspace root (its working directory, as spelled and as it really is) and
 * naming no argument path through a link. The same argv elsewhere, or once an
 * argument leads to another file, is another command, which nobody was shown.
 *
 * A working directory spelled with a backslash is read two ways: rules fold
 * it as a separator, so `x\..` is the root to them, while a POSIX host runs
 * the command in the folder named `x\..`. Such a spelling is never taken
 * for the root.
 */
function runsAsApproved(subject: RuleSubject): boolean {
  const atRoot = subject.cwd?.requested.includes('\\') !== true;
  return atRoot && subject.argumentPaths?.some((path) => path.linkTraversal) !== true && subject.paths.every((path) => path.relative === '.');
}

/**
 * A Gemini CLI shell pattern over its stable JSON of the call, read as a
 * Claude Code command pattern is (`CommandLines`): an allow reads the command
 * as typed and never approves one an exec wrapper runs (a prefix names the
 * wrapper, not what it runs); a deny or ask also reads it unquoted, by the
 * program's base name, git without its global options, and every command a
 * wrapper runs, so `timeout 5 rm x` is as denied as `rm x`.
 */
function shellArgsMatch(program: RegexProgram, decision: RuleDecision, views: SubjectViews): boolean {
  const lines = views.commandLines as CommandLines;
  const read = (command: string): boolean => regexMatch(program, views.geminiJson(command), decision, views.regexBudget);
  if (decision === 'allow') return !lines.wrapped && read(lines.quoted);
  return lines.cut || lines.all.some(read);
}

/** Gemini CLI's stable JSON of each command line of `subject`, with its working directory, made once a line. */
function geminiJsonOf(subject: RuleSubject): (command: string) => string {
  const made = new Map<string, string>();
  const cwd = isRecord(subject.args) && typeof subject.args.cwd === 'string' ? subject.args.cwd : undefined;
  return (command) => {
    let json = made.get(command);
    if (json === undefined) made.set(command, (json = geminiStableJson({ command, dir_path: cwd })));
    return json;
  };
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function safeJson(value: unknown): string | undefined {
  try {
    return canonicalJson(value ?? {});
  } catch {
    return undefined;
  }
}
