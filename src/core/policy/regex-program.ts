import type { UnitTest } from './regex-char-set.js';

/** Steps of a program: one code unit, a fork, a test of the position, or the end of a match. */
export const OP_UNIT = 0;
export const OP_SPLIT = 1;
export const OP_ASSERT = 2;
export const OP_MATCH = 3;

/** A test of a position: the text's start or end, a word boundary (or not), or a lookahead (`(?=…)`, `(?!…)`). */
export type RegexAssertion =
  | { readonly kind: 'start' | 'end' | 'boundary' | 'not-boundary' }
  | { readonly kind: 'look'; readonly negate: boolean; readonly body: RegexProgram };

/** A parsed regular expression: units (`literal`: the one unit it is, lower case under `i`), sequences, alternatives, repetitions and tests. */
export type RegexNode =
  | { readonly t: 'unit'; readonly test: UnitTest; readonly literal?: string }
  | { readonly t: 'seq'; readonly items: readonly RegexNode[] }
  | { readonly t: 'alt'; readonly items: readonly RegexNode[] }
  | { readonly t: 'repeat'; readonly body: RegexNode; readonly min: number; readonly max: number }
  | { readonly t: 'assert'; readonly assertion: RegexAssertion };

/**
 * Text every match must hold (lower case under `i`, where an ASCII letter
 * matches only its two cases): the text must begin with `prefix`, end with
 * `suffix` and contain each of `infixes`, as a whole name where the infix
 * says so (`.git` of `**\/.git/**`). Checked before the automaton runs:
 * most paths a glob does not name are answered by it alone.
 */
export interface RequiredText {
  readonly prefix: string;
  readonly suffix: string;
  readonly infixes: readonly RequiredInfix[];
  readonly nocase: boolean;
}

/**
 * A run of units every match holds; `named`: it always begins after a `/`
 * or at the start, `ends`: it always ends before a `/` or at the end,
 * `last`: no `/` follows it (it lies in the text's last name).
 */
export interface RequiredInfix {
  readonly text: string;
  readonly named: boolean;
  readonly ends: boolean;
  readonly last: boolean;
}

/**
 * A regular expression compiled to a Thompson automaton: numbered states,
 * each a step. Run by `runRegexProgram`, which keeps every live state at
 * once, so no text costs more than its length times the states.
 */
export interface RegexProgram {
  readonly start: number;
  readonly op: Uint8Array;
  /** The state after a unit or a test, or a fork's first branch. */
  readonly next: Int32Array;
  /** A fork's second branch. */
  readonly alt: Int32Array;
  readonly units: readonly (UnitTest | undefined)[];
  /** `ascii[state * 128 + unit]`: a unit step's answers for ASCII, read without a call. */
  readonly ascii: Uint8Array;
  readonly assertions: readonly (RegexAssertion | undefined)[];
  /** Each state's forks and tests that lead to it without a unit (CSR: `predecessors[predecessorStart[s] .. predecessorStart[s + 1]]`), for reading backwards. */
  readonly predecessorStart: Int32Array;
  readonly predecessors: Int32Array;
  /** The unit steps, for reading backwards. */
  readonly unitStates: Int32Array;
  /** Whether a match may only begin where the text does (the program begins with `^`): the search need not restart at each position. */
  readonly anchored: boolean;
  /** The longest text a match may span, or -1 when unbounded (a repetition without end): a bounded lookahead costs a few steps where it is asked. */
  readonly reach: number;
  /** The ASCII units a match may begin with, and whether one may be empty (every test taken as passing). */
  readonly opening: { readonly ascii: Uint8Array; readonly empty: boolean };
  /** What a text must hold to match (a program searched for, not a lookahead). */
  readonly required: RequiredText | undefined;
  /** Working memory kept between runs, so a run allocates nothing (a program is never run inside its own run). */
  readonly scratch: RegexScratch;
}

/** `seen[state] === generation`: the state is already added at this step. `answered`: the text `answers` (1 yes, 0 no, -1 not asked) belong to, as a lookahead. */
export interface RegexScratch {
  lists: [Int32Array, Int32Array];
  seen: Int32Array;
  stack: Int32Array;
  generation: number;
  answered: string | undefined;
  answers: Int8Array;
}
