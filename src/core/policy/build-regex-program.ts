import type { UnitTest } from './regex-char-set.js';
import { RegexProgramError } from './regex-program-error.js';
import { OP_ASSERT, OP_MATCH, OP_SPLIT, OP_UNIT, type RegexAssertion, type RegexNode, type RegexProgram, type RequiredText } from './regex-program.js';

/** The most states one pattern's automaton (its lookaheads included) may have: bounds what every character of a path costs. */
export const MAX_REGEX_STATES = 20_000;

/** The most (state, offset) pairs a bounded lookahead is tried over where it is asked. */
const MAX_BOUNDED_CELLS = 16_384;

/** Thompson's construction, from the end backwards: each node is compiled knowing the state that follows it. */
export function buildRegexProgram(tree: RegexNode, budget: { states: number }, options: { readonly anchored: boolean; readonly required: RequiredText | undefined }): RegexProgram {
  const op: number[] = [];
  const next: number[] = [];
  const alt: number[] = [];
  const units: (UnitTest | undefined)[] = [];
  const assertions: (RegexAssertion | undefined)[] = [];
  let bounded = true;
  const add = (kind: number, after: number, other = -1, test?: UnitTest, assertion?: RegexAssertion): number => {
    budget.states += 1;
    if (budget.states > MAX_REGEX_STATES) throw new RegexProgramError('too_large', `more than ${MAX_REGEX_STATES} states`);
    op.push(kind);
    next.push(after);
    alt.push(other);
    units.push(test);
    assertions.push(assertion);
    return op.length - 1;
  };
  const compile = (node: RegexNode, after: number): number => {
    switch (node.t) {
      case 'unit':
        return add(OP_UNIT, after, -1, node.test);
      case 'assert':
        return add(OP_ASSERT, after, -1, undefined, node.assertion);
      case 'seq': {
        let state = after;
        for (let item = node.items.length - 1; item >= 0; item -= 1) state = compile(node.items[item] as RegexNode, state);
        return state;
      }
      case 'alt': {
        let state = compile(node.items[node.items.length - 1] as RegexNode, after);
        for (let item = node.items.length - 2; item >= 0; item -= 1) state = add(OP_SPLIT, compile(node.items[item] as RegexNode, after), state);
        return state;
      }
      case 'repeat': {
        let state = after;
        if (node.max === Infinity) {
          bounded = false;
          const loop = add(OP_SPLIT, -1, after);
          next[loop] = compile(node.body, loop);
          state = loop;
        } else for (let copy = node.min; copy < node.max; copy += 1) state = add(OP_SPLIT, compile(node.body, state), after);
        for (let copy = 0; copy < node.min; copy += 1) state = compile(node.body, state);
        return state;
      }
    }
  };
  const match = add(OP_MATCH, -1);
  const start = compile(tree, match);
  return finish({ start, op, next, alt, units, assertions, top: options.anchored, bounded, required: options.required });
}

function finish(parts: {
  start: number;
  op: number[];
  next: number[];
  alt: number[];
  units: (UnitTest | undefined)[];
  assertions: (RegexAssertion | undefined)[];
  top: boolean;
  bounded: boolean;
  required: RequiredText | undefined;
}): RegexProgram {
  const count = parts.op.length;
  const incoming: number[][] = Array.from({ length: count }, () => []);
  const unitStates: number[] = [];
  for (let state = 0; state < count; state += 1) {
    const kind = parts.op[state];
    if (kind === OP_UNIT) unitStates.push(state);
    else if (kind === OP_SPLIT) {
      (incoming[parts.next[state] as number] as number[]).push(state);
      (incoming[parts.alt[state] as number] as number[]).push(state);
    } else if (kind === OP_ASSERT) (incoming[parts.next[state] as number] as number[]).push(state);
  }
  const predecessorStart = new Int32Array(count + 1);
  for (let state = 0; state < count; state += 1) predecessorStart[state + 1] = (predecessorStart[state] as number) + (incoming[state] as number[]).length;
  const first = parts.assertions[parts.start];
  const ascii = new Uint8Array(count * 128);
  for (let state = 0; state < count; state += 1) {
    const test = parts.units[state];
    if (test !== undefined) ascii.set(test.ascii, state * 128);
  }
  const longest = parts.bounded ? reachOf(parts.op, parts.next, parts.alt, parts.start) : -1;
  // A lookahead too long to try as (state, offset) pairs where it is asked is answered for every position at once instead.
  const reach = longest >= 0 && count * (longest + 1) <= MAX_BOUNDED_CELLS ? longest : -1;
  // A bounded lookahead is tried as (state, offset) pairs; the forward run only needs each state once.
  const cells = reach >= 0 ? count * (reach + 1) : count;
  return {
    start: parts.start,
    op: Uint8Array.from(parts.op),
    next: Int32Array.from(parts.next),
    alt: Int32Array.from(parts.alt),
    units: parts.units,
    assertions: parts.assertions,
    predecessorStart,
    predecessors: Int32Array.from(incoming.flat()),
    unitStates: Int32Array.from(unitStates),
    anchored: parts.top && parts.op[parts.start] === OP_ASSERT && first?.kind === 'start',
    reach,
    opening: openingOf(parts, incoming.length),
    required: parts.required,
    ascii,
    scratch: {
      lists: [new Int32Array(count), new Int32Array(count)],
      seen: new Int32Array(Math.max(cells, count)).fill(-1),
      stack: new Int32Array(4 * Math.max(cells, count) + 2),
      generation: 0,
      answered: undefined,
      answers: new Int8Array(0),
    },
  };
}

/** The longest match from `start` in an automaton without loops, where every step leads to a state built before it (a lower number). */
function reachOf(op: readonly number[], next: readonly number[], alt: readonly number[], start: number): number {
  const longest = new Array<number>(op.length).fill(0);
  for (let state = 0; state < op.length; state += 1) {
    const kind = op[state];
    if (kind === OP_UNIT) longest[state] = 1 + (longest[next[state] as number] as number);
    else if (kind === OP_SPLIT) longest[state] = Math.max(longest[next[state] as number] as number, longest[alt[state] as number] as number);
    else if (kind === OP_ASSERT) longest[state] = longest[next[state] as number] as number;
  }
  return longest[start] as number;
}

/**
 * The ASCII units a match may begin with, and whether one may be empty,
 * taking every test as passing: a lookahead asked where the text holds
 * none of them (and no empty match is possible) fails without a step.
 */
function openingOf(parts: { start: number; op: number[]; next: number[]; alt: number[]; units: (UnitTest | undefined)[] }, count: number): { readonly ascii: Uint8Array; readonly empty: boolean } {
  const ascii = new Uint8Array(128);
  let empty = false;
  const seen = new Uint8Array(count);
  const stack = [parts.start];
  while (stack.length > 0) {
    const state = stack.pop() as number;
    if (seen[state] === 1) continue;
    seen[state] = 1;
    const kind = parts.op[state];
    if (kind === OP_UNIT) {
      const table = (parts.units[state] as UnitTest).ascii;
      for (let unit = 0; unit < 128; unit += 1) ascii[unit] = (ascii[unit] as number) | (table[unit] as number);
    } else if (kind === OP_SPLIT) stack.push(parts.alt[state] as number, parts.next[state] as number);
    else if (kind === OP_ASSERT) stack.push(parts.next[state] as number);
    else empty = true;
  }
  return { ascii, empty };
}
