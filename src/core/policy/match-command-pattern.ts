import { commandReadings, type CommandReadings } from './command-readings.js';
import { unwrapCommand } from './exec-wrappers.js';
import { quoteArgv } from './quote-argv.js';
import type { RuleDecision } from './rule-types.js';
import { starMatcher } from './star-matcher.js';

/** A Claude Code `Bash(…)` specifier, compiled: a test of a command line. */
export interface CommandPattern {
  readonly test: (line: string) => boolean;
  /** A prefix or wildcard pattern (anything but an exact command). */
  readonly wildcard: boolean;
}

/**
 * Claude Code's command patterns: `npm run test:*` is the prefix `npm run test`
 * at a word boundary (`npm run test` itself or followed by a space); `*`
 * elsewhere matches any run of characters, spaces included, so `ls*` matches
 * `lsof` and `ls -la`, while `ls *` needs the space. A final ` *` is optional
 * when it is the pattern's only wildcard (`ls *` matches `ls`); a deny or ask
 * always reads it so, which only widens it. Anything else is the exact command.
 */
export function compileCommandPattern(specifier: string, decision: RuleDecision): CommandPattern {
  const text = specifier.trim();
  if (text.endsWith(':*')) {
    const prefix = text.slice(0, -2);
    return { test: (line) => line === prefix || line.startsWith(`${prefix} `), wildcard: true };
  }
  if (!text.includes('*')) return { test: (line) => line === text, wildcard: false };
  const optionalTail = text.endsWith(' *') && (decision !== 'allow' || text.indexOf('*') === text.length - 1);
  const body = optionalTail ? text.slice(0, -2) : text;
  const exact = starMatcher(body.split('*'));
  const tailed = starMatcher(`${body} *`.split('*'));
  return { test: optionalTail ? (line) => exact(line) || tailed(line) : exact, wildcard: true };
}

/**
 * What command patterns read of one argv, worked out once per call however
 * many rules read it: its command line is the argv shell-quoted, as the
 * person would have typed it. An allow sees that line only, and a prefix or
 * wildcard allow never approves an exec wrapper (`timeout`, `xargs`,
 * `watch`, `env`, `sudo`, …: Claude Code refuses that too), since the
 * command the wrapper runs is not what the rule names. A deny or ask also
 * sees the line joined without quoting, and every command the argv may run
 * (`commandReadings`): from each argument that is no option, by the
 * program's base name, git without its global options, npm's command as npm
 * reads it, and the commands of a shell string an argument holds.
 */
export class CommandLines {
  readonly #argv: readonly string[];
  #quoted: string | undefined;
  #wrapped: boolean | undefined;
  #readings: CommandReadings | undefined;
  #all: readonly string[] | undefined;

  constructor(argv: readonly string[]) {
    this.#argv = argv;
  }

  get empty(): boolean {
    return this.#argv.length === 0;
  }

  /** The one line an allow reads. */
  get quoted(): string {
    return (this.#quoted ??= quoteArgv(this.#argv));
  }

  /** Whether the argv runs another command through an exec wrapper. */
  get wrapped(): boolean {
    return (this.#wrapped ??= unwrapCommand(this.#argv) !== undefined);
  }

  /** Every argv a deny or ask reads (`commandReadings`): argv rules match these. */
  get readings(): readonly (readonly string[])[] {
    return (this.#readings ??= commandReadings(this.#argv)).forms;
  }

  /** Whether the readings stopped short of every command the argv may run: a deny or ask then covers it. */
  get cut(): boolean {
    return (this.#readings ??= commandReadings(this.#argv)).cut;
  }

  /** `cut`, without reading the command when no rule has yet. */
  get cutOnceRead(): boolean {
    return this.#readings?.cut === true;
  }

  /**
   * Every line a deny or ask reads: each reading shell-quoted and joined as
   * it is. The readings share their words (each argument starts one), so
   * each word is quoted once.
   */
  get all(): readonly string[] {
    if (this.#all !== undefined) return this.#all;
    const quoted = new Map<string, string>();
    const quote = (word: string): string => {
      let line = quoted.get(word);
      if (line === undefined) quoted.set(word, (line = quoteArgv([word])));
      return line;
    };
    return (this.#all = this.readings.flatMap((form) => [form.map(quote).join(' '), form.join(' ')]));
  }
}

/** Whether a command matches the pattern, as `decision` reads it (`CommandLines`). */
export function matchCommandPattern(pattern: CommandPattern, lines: CommandLines, decision: RuleDecision): boolean {
  if (lines.empty) return false;
  if (decision === 'allow') return !(pattern.wildcard && lines.wrapped) && pattern.test(lines.quoted);
  return lines.cut || lines.all.some((line) => pattern.test(line));
}
