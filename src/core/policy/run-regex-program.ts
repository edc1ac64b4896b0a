import { holdsRequiredText } from './required-text.js';
import { OP_ASSERT, OP_MATCH, OP_SPLIT, OP_UNIT, type RegexAssertion, type RegexProgram } from './regex-program.js';

/**
 * Whether `program` matches somewhere in `text` (`RegExp.prototype.test`).
 * Every live state advances over each code unit at once (a Thompson, or
 * Pike, simulation), and a lookahead is answered at most once per position
 * of a text (a bounded one by a few steps where it is asked, any other for
 * every position in one backward pass): the cost is at most the text's
 * length times the states of the program and its lookaheads, whatever the
 * text holds. A text without what every match must hold (`required`) is
 * answered before any of that.
 */
export function runRegexProgram(program: RegexProgram, text: string): boolean {
  return readRegexProgram(program, text, { steps: Infinity }) === true;
}

/** What the patterns one call is read against may still spend: a step is one state reached or carried over one code unit. */
export interface RegexBudget {
  steps: number;
}

/**
 * `runRegexProgram` within `budget`, which it spends: undefined when the
 * budget ran out before the text was read to its end or to a match. The
 * cost of a pattern is the text's length times the states it holds live,
 * so a pattern of thousands of states (`.*a.*a…`, which a project's policy
 * may ship) read against 64 KB of arguments held the gateway's thread for
 * 4 s; a caller that reads many texts shares one budget across them.
 */
export function readRegexProgram(program: RegexProgram, text: string, budget: RegexBudget): boolean | undefined {
  try {
    return simulate(program, text, budget);
  } catch (error) {
    if (!(error instanceof RegexBudgetSpent)) throw error;
    // Stopped inside a lookahead, the marks of this run were left ahead of the program's count: they start again.
    program.scratch.seen.fill(-1);
    program.scratch.generation = 0;
    return undefined;
  }
}

/** Thrown where a lookahead spends the last of a budget, and caught by `readRegexProgram` alone. */
class RegexBudgetSpent extends Error {
  constructor() {
    super('the budget of steps for argument patterns ran out');
    this.name = 'RegexBudgetSpent';
  }
}

/** Take `steps` from `budget`; past its end, stop the whole reading (`RegexBudgetSpent`). */
function spend(budget: RegexBudget, steps: number): void {
  budget.steps -= steps;
  if (budget.steps < 0) throw new RegexBudgetSpent();
}

/** `readRegexProgram`'s simulation: undefined where the budget ran out between two code units. */
function simulate(program: RegexProgram, text: string, budget: RegexBudget): boolean | undefined {
  // Each text is read at least once, for what every match must hold: thousands of command lines are many texts.
  budget.steps -= text.length;
  if (budget.steps < 0) return undefined;
  if (program.required !== undefined && !holdsRequiredText(program.required, text)) return false;
  const { op, next, alt, units, ascii, assertions, scratch } = program;
  const { seen, stack } = scratch;
  // Numbers of steps only grow; far before they would overflow, the marks start again.
  if (scratch.generation > 0x3fffffff - text.length) {
    seen.fill(-1);
    scratch.generation = 0;
  }
  let [current, following] = scratch.lists;
  let followingSize = 0;
  let generation = scratch.generation + 1;
  const search = !program.anchored;
  let position = 0;
  let top = 0;
  stack[top++] = program.start;
  let steps = 0;
  for (;;) {
    // Every state the pushed ones reach at `position` without reading a unit, into `following`.
    while (top > 0) {
      const at = stack[--top] as number;
      steps += 1;
      if (seen[at] === generation) continue;
      seen[at] = generation;
      const kind = op[at];
      if (kind === OP_UNIT) following[followingSize++] = at;
      else if (kind === OP_SPLIT) {
        stack[top++] = alt[at] as number;
        stack[top++] = next[at] as number;
      } else if (kind === OP_ASSERT) {
        if (holds(assertions[at] as RegexAssertion, text, position, budget)) stack[top++] = next[at] as number;
      } else if (kind === OP_MATCH) {
        scratch.generation = generation;
        return true;
      }
    }
    if (position === text.length || (followingSize === 0 && !search)) break;
    const swap = current;
    current = following;
    following = swap;
    const currentSize = followingSize;
    budget.steps -= steps + currentSize;
    steps = 0;
    if (budget.steps < 0) {
      scratch.generation = generation;
      return undefined;
    }
    followingSize = 0;
    generation += 1;
    const unit = text.charCodeAt(position);
    position += 1;
    for (let index = 0; index < currentSize; index += 1) {
      const state = current[index] as number;
      if (unit < 128 ? ascii[state * 128 + unit] === 1 : (units[state] as (unit: number) => boolean)(unit)) stack[top++] = next[state] as number;
    }
    if (search) stack[top++] = program.start;
  }
  scratch.generation = generation;
  return false;
}

function holds(assertion: RegexAssertion, text: string, position: number, budget: RegexBudget): boolean {
  switch (assertion.kind) {
    case 'start':
      return position === 0;
    case 'end':
      return position === text.length;
    case 'boundary':
      return isWord(text, position - 1) !== isWord(text, position);
    case 'not-boundary':
      return isWord(text, position - 1) === isWord(text, position);
    case 'look': {
      const body = assertion.body;
      const scratch = body.scratch;
      // The answers belong to one text: another text (even the same one spelled again) starts them afresh.
      if (scratch.answered !== text) {
        if (body.reach >= 0) {
          if (scratch.answers.length < text.length + 1) scratch.answers = new Int8Array(text.length + 1);
          scratch.answers.fill(-1, 0, text.length + 1);
        } else {
          // The table costs each of the lookahead's states once per position, before any of it is asked.
          spend(budget, (text.length + 1) * body.op.length);
          scratch.answers = lookahead(body, text, budget);
        }
        scratch.answered = text;
      }
      let answer = scratch.answers[position] as number;
      if (answer === -1) {
        const unit = position < text.length ? text.charCodeAt(position) : -1;
        // Most positions hold no unit a match may begin with (`(?:^|\/)\.…` where neither `/` nor `.` is).
        const opens = body.opening.empty || (unit >= 128 || (unit >= 0 && body.opening.ascii[unit] === 1));
        answer = opens && lookaheadAt(body, text, position, budget) ? 1 : 0;
        scratch.answers[position] = answer;
      }
      return (answer === 1) !== assertion.negate;
    }
  }
}

/** `\w` without `u`: ASCII letters, digits and `_`. */
function isWord(text: string, position: number): boolean {
  const unit = position >= 0 && position < text.length ? text.charCodeAt(position) : -1;
  return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || unit === 0x5f || (unit >= 0x61 && unit <= 0x7a);
}

/**
 * Whether a bounded `body` matches text beginning at `position`: each
 * (state, offset) pair tried once, so at most its states times its reach,
 * and most positions end at the first step (`(?:^|\/)\.…` where no `/` is).
 */
function lookaheadAt(body: RegexProgram, text: string, position: number, budget: RegexBudget): boolean {
  const width = body.reach + 1;
  const scratch = body.scratch;
  if (scratch.generation >= 0x3fffffff) {
    scratch.seen.fill(-1);
    scratch.generation = 0;
  }
  const generation = (scratch.generation += 1);
  const { seen, stack } = scratch;
  const { op, next, alt, units, ascii, assertions } = body;
  let top = 0;
  stack[top++] = body.start;
  stack[top++] = 0;
  let steps = 0;
  while (top > 0) {
    const offset = stack[--top] as number;
    const state = stack[--top] as number;
    steps += 1;
    const cell = state * width + offset;
    if (seen[cell] === generation) continue;
    seen[cell] = generation;
    const kind = op[state];
    const at = position + offset;
    if (kind === OP_UNIT) {
      const unit = at < text.length ? text.charCodeAt(at) : -1;
      if (unit >= 0 && (unit < 128 ? ascii[state * 128 + unit] === 1 : (units[state] as (unit: number) => boolean)(unit))) {
        stack[top++] = next[state] as number;
        stack[top++] = offset + 1;
      }
    } else if (kind === OP_SPLIT) {
      stack[top++] = alt[state] as number;
      stack[top++] = offset;
      stack[top++] = next[state] as number;
      stack[top++] = offset;
    } else if (kind === OP_ASSERT) {
      if (holds(assertions[state] as RegexAssertion, text, at, budget)) {
        stack[top++] = next[state] as number;
        stack[top++] = offset;
      }
    } else {
      spend(budget, steps);
      return true;
    }
  }
  spend(budget, steps);
  return false;
}

/**
 * For each position, whether an unbounded `body` matches some text starting
 * there. Read from the end backwards: a state is live at a position when a
 * match follows from it there, which the states live one position later
 * decide; each position costs the body's states once.
 */
function lookahead(body: RegexProgram, text: string, budget: RegexBudget): Int8Array {
  const count = body.op.length;
  const result = new Int8Array(text.length + 1);
  let later = new Uint8Array(count);
  let here = new Uint8Array(count);
  const queue = new Int32Array(count);
  const { op, next, units, assertions, predecessorStart, predecessors, unitStates } = body;
  let match = 0;
  while (op[match] !== OP_MATCH) match += 1;
  for (let position = text.length; position >= 0; position -= 1) {
    here.fill(0);
    let size = 0;
    here[match] = 1;
    queue[size++] = match;
    if (position < text.length) {
      const unit = text.charCodeAt(position);
      for (let index = 0; index < unitStates.length; index += 1) {
        const state = unitStates[index] as number;
        if (later[next[state] as number] === 1 && (units[state] as (unit: number) => boolean)(unit)) {
          here[state] = 1;
          queue[size++] = state;
        }
      }
    }
    while (size > 0) {
      const state = queue[--size] as number;
      for (let edge = predecessorStart[state] as number; edge < (predecessorStart[state + 1] as number); edge += 1) {
        const from = predecessors[edge] as number;
        if (here[from] === 1) continue;
        if (op[from] === OP_SPLIT || holds(assertions[from] as RegexAssertion, text, position, budget)) {
          here[from] = 1;
          queue[size++] = from;
        }
      }
    }
    result[position] = here[body.start] as number;
    const swap = later;
    later = here;
    here = swap;
  }
  return result;
}
