import type { RegexNode, RequiredInfix, RequiredText } from './regex-program.js';

/**
 * What every match of `tree` must hold, read from the units its top-level
 * sequence must pass in order (through nested sequences, never into an
 * alternative or a repetition): each run of single units is a text every
 * match contains, the run after a leading `^` begins the text and the run
 * before a final `$` ends it. A run whose neighbours are, on every way
 * through them, a `/` or the text's edge is a whole name; one followed to
 * the final `$` by what reads no `/` (but one ending the text) lies in the
 * text's last name.
 * Undefined when there is none.
 */
export function requiredText(tree: RegexNode, nocase: boolean): RequiredText | undefined {
  const items = flatten(tree);
  const toLastName = readsNoSlashToEnd(items);
  const infixes: RequiredInfix[] = [];
  let run = '';
  for (let index = 0; index <= items.length; index += 1) {
    const item = items[index];
    if (item?.t === 'unit' && item.literal !== undefined) {
      run += item.literal;
      continue;
    }
    if (run !== '') {
      const before = items[index - run.length - 1];
      const last = !run.includes('/') && toLastName[index] === true;
      infixes.push({ text: run, named: before !== undefined && endsAtName(before), ends: item !== undefined && beginsAtName(item), last });
    }
    run = '';
  }
  const edge = (from: number, step: number): string => {
    let text = '';
    for (let index = from; index >= 0 && index < items.length; index += step) {
      const item = items[index] as RegexNode;
      if (item.t !== 'unit' || item.literal === undefined) break;
      text = step > 0 ? text + item.literal : item.literal + text;
    }
    return text;
  };
  const first = items[0];
  const last = items[items.length - 1];
  const prefix = first?.t === 'assert' && first.assertion.kind === 'start' ? edge(1, 1) : '';
  const suffix = last?.t === 'assert' && last.assertion.kind === 'end' ? edge(items.length - 2, -1) : '';
  if (prefix === '' && suffix === '' && infixes.length === 0) return undefined;
  // The longest runs say the most; three are enough to turn away nearly every path that does not match.
  return { prefix, suffix, infixes: infixes.sort((a, b) => b.text.length - a.text.length).slice(0, 3), nocase };
}

/**
 * For each place in `items`, whether what follows it to the end reads no `/`
 * and the sequence ends the text (`$`): a glob ending in a wildcard may take
 * one `/` at the very end (`\/?`), which is allowed. One pass from the end,
 * so a glob of thousands of runs is read in time linear in its length.
 */
function readsNoSlashToEnd(items: readonly RegexNode[]): boolean[] {
  const answers = new Array<boolean>(items.length + 1).fill(false);
  const end = items.length - 1;
  if (end < 0 || !isEnd(items[end] as RegexNode)) return answers;
  answers[end] = true;
  for (let index = end - 1; index >= 0; index -= 1) {
    const item = items[index] as RegexNode;
    answers[index] = answers[index + 1] === true && ((index === end - 1 && isOptionalSlash(item)) || holdsNoSlash(item));
  }
  return answers;
}

function flatten(node: RegexNode): RegexNode[] {
  return node.t === 'seq' ? node.items.flatMap(flatten) : [node];
}

function isOptionalSlash(node: RegexNode): boolean {
  return node.t === 'repeat' && node.min === 0 && node.max === 1 && node.body.t === 'unit' && node.body.literal === '/';
}

function isEnd(node: RegexNode): boolean {
  return node.t === 'assert' && node.assertion.kind === 'end';
}

/** Whether no way through `node` reads a `/` (a test reads none; with `i`, only `/` itself folds to `/`). */
function holdsNoSlash(node: RegexNode): boolean {
  if (node.t === 'unit') return node.test.ascii[0x2f] === 0;
  if (node.t === 'assert') return true;
  if (node.t === 'repeat') return holdsNoSlash(node.body);
  return node.items.every(holdsNoSlash);
}

/** Whether every way through `node` ends with a `/` or is at the text's start (`^`). */
function endsAtName(node: RegexNode): boolean {
  if (node.t === 'unit') return node.literal === '/';
  if (node.t === 'assert') return node.assertion.kind === 'start';
  if (node.t === 'alt') return node.items.every(endsAtName);
  if (node.t === 'seq') return node.items.length > 0 && endsAtName(node.items[node.items.length - 1] as RegexNode);
  return false;
}

/** Whether every way through `node` begins with a `/` or is at the text's end (`$`). */
function beginsAtName(node: RegexNode): boolean {
  if (node.t === 'unit') return node.literal === '/';
  if (node.t === 'assert') return node.assertion.kind === 'end';
  if (node.t === 'alt') return node.items.every(beginsAtName);
  if (node.t === 'seq') return node.items.length > 0 && beginsAtName(node.items[0] as RegexNode);
  return false;
}

/** Whether `text` holds what `required` asks: exactly, or under `nocase` with ASCII letters in either case. */
export function holdsRequiredText(required: RequiredText, text: string): boolean {
  const { prefix, suffix, infixes, nocase } = required;
  // The two may be the same units (a glob without wildcards): each is checked on its own.
  if (prefix.length > text.length || suffix.length > text.length) return false;
  for (let index = 0; index < prefix.length; index += 1) if (fold(text.charCodeAt(index), nocase) !== prefix.charCodeAt(index)) return false;
  const offset = text.length - suffix.length;
  for (let index = 0; index < suffix.length; index += 1) if (fold(text.charCodeAt(offset + index), nocase) !== suffix.charCodeAt(index)) return false;
  if (infixes.length === 0) return true;
  // Lower case never parts a run of ASCII (each such unit stays one unit) nor moves a `/` or an edge away from
  // it, so a run the text holds in any case, as a whole name where it is one, is found.
  const folded = nocase ? text.toLowerCase() : text;
  return infixes.every((infix) => holdsInfix(folded, infix));
}

function holdsInfix(text: string, { text: infix, named, ends, last }: RequiredInfix): boolean {
  // In the last name: the search starts after the last `/` but one that ends the text (lower case moves no `/`).
  for (let at = text.indexOf(infix, last ? text.lastIndexOf('/', text.length - 2) + 1 : 0); at !== -1; at = text.indexOf(infix, at + 1)) {
    const end = at + infix.length;
    if ((!named || at === 0 || text.charCodeAt(at - 1) === 0x2f) && (!ends || end === text.length || text.charCodeAt(end) === 0x2f)) return true;
  }
  return false;
}

function fold(unit: number, nocase: boolean): number {
  return nocase && unit >= 0x41 && unit <= 0x5a ? unit + 32 : unit;
}
