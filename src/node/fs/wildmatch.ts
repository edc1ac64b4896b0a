/**
 * A gitignore pattern as git's wildmatch reads it: `*` and `?` within one
 * name, `[...]` classes (`!` or `^` negates, ranges, `[:alpha:]` and the
 * other POSIX names), `\` escapes the next character, and `**` as a whole
 * name (`**\/`, `/**\/`, `/**`) across names; other runs of stars are one
 * star. No braces or extended globs: git has none.
 *
 * Matched by stepping every live position of the pattern at once over the
 * text (a Thompson simulation), so a match costs at most the text's length
 * times the pattern's, whatever they hold: the backtracking regular
 * expression it replaces (picomatch) took minutes on `*a*a*a*a*a*a*a*a*b`
 * against a name of sixty `a`s, on the gateway's one thread.
 */
export function compileWildmatch(pattern: string): (text: string, budget: MatchBudget) => boolean {
  const tokens = tokenize(pattern);
  // A class that never closes makes git's wildmatch give up on the whole pattern: it matches nothing.
  if (tokens === undefined) return () => false;
  return (text, budget) => run(tokens, text, budget);
}

/**
 * What the matches of one listing may cost together, in steps (a live
 * position of a pattern stepped over a character, or a rule tried): a
 * `.gitignore` holds up to 256 KiB of rules in each folder, each tried on
 * every entry. Once spent, no rule matches: what is left is listed, as if
 * not ignored (ignoring is a convenience, never what keeps a path out).
 */
export interface MatchBudget {
  remaining: number;
}

type Token =
  | { readonly kind: 'char'; readonly char: string }
  | { readonly kind: 'one' }
  | { readonly kind: 'class'; readonly test: (char: string) => boolean }
  /** Any run of characters but `/`. */
  | { readonly kind: 'star' }
  /** Any run of characters, `/` included. */
  | { readonly kind: 'all' }
  /** Nothing, or any run of characters that ends with `/`: whole names. */
  | { readonly kind: 'names' };

function tokenize(pattern: string): Token[] | undefined {
  const tokens: Token[] = [];
  for (let index = 0; index < pattern.length; ) {
    const char = pattern[index] as string;
    if (char === '*') {
      let end = index;
      while (pattern[end] === '*') end += 1;
      const wholeName = end - index >= 2 && (index === 0 || pattern[index - 1] === '/') && (end === pattern.length || pattern[end] === '/');
      if (!wholeName) tokens.push({ kind: 'star' });
      else if (end === pattern.length) tokens.push({ kind: 'all' });
      else {
        tokens.push({ kind: 'names' });
        end += 1; // the `/` after `**` is part of it: `**/b` matches `b`.
      }
      index = end;
    } else if (char === '?') {
      tokens.push({ kind: 'one' });
      index += 1;
    } else if (char === '[') {
      const parsed = parseClass(pattern, index + 1);
      if (parsed === undefined) return undefined;
      tokens.push({ kind: 'class', test: parsed.test });
      index = parsed.end;
    } else if (char === '\\' && index + 1 < pattern.length) {
      tokens.push({ kind: 'char', char: pattern[index + 1] as string });
      index += 2;
    } else {
      tokens.push({ kind: 'char', char });
      index += 1;
    }
  }
  return tokens;
}

const POSIX_CLASSES: Readonly<Record<string, RegExp>> = {
  alnum: /[A-Za-z0-9]/,
  alpha: /[A-Za-z]/,
  blank: /[ \t]/,
  cntrl: /[\x00-\x1f\x7f]/, // eslint-disable-line no-control-regex -- the POSIX class names control characters
  digit: /[0-9]/,
  graph: /[!-~]/,
  lower: /[a-z]/,
  print: /[ -~]/,
  punct: /[!-/:-@[-`{-~]/,
  space: /[ \t\n\r\f\v]/,
  upper: /[A-Z]/,
  xdigit: /[0-9A-Fa-f]/,
};

/** A `[...]` class from just after its `[`: its test (never `/`) and where it ends; undefined when it never closes. */
function parseClass(pattern: string, start: number): { test: (char: string) => boolean; end: number } | undefined {
  let index = start;
  const negate = pattern[index] === '!' || pattern[index] === '^';
  if (negate) index += 1;
  const tests: ((char: string) => boolean)[] = [];
  for (let first = true; index < pattern.length; first = false) {
    let char = pattern[index] as string;
    if (char === ']' && !first) {
      return { test: (candidate) => candidate !== '/' && tests.some((test) => test(candidate)) !== negate, end: index + 1 };
    }
    if (char === '[' && pattern[index + 1] === ':') {
      const close = pattern.indexOf(':]', index + 2);
      const named = close === -1 ? undefined : POSIX_CLASSES[pattern.slice(index + 2, close)];
      if (named === undefined) return undefined;
      tests.push((candidate) => named.test(candidate));
      index = close + 2;
      continue;
    }
    if (char === '\\' && index + 1 < pattern.length) {
      index += 1;
      char = pattern[index] as string;
    }
    const low = char;
    index += 1;
    if (pattern[index] === '-' && index + 1 < pattern.length && pattern[index + 1] !== ']') {
      let high = pattern[index + 1] as string;
      index += 2;
      if (high === '\\' && index < pattern.length) {
        high = pattern[index] as string;
        index += 1;
      }
      tests.push((candidate) => candidate >= low && candidate <= high);
    } else {
      tests.push((candidate) => candidate === low);
    }
  }
  return undefined;
}

function run(tokens: readonly Token[], text: string, budget: MatchBudget): boolean {
  const size = tokens.length + 1;
  let live = new Uint8Array(size);
  let next = new Uint8Array(size);
  live[0] = 1;
  close(tokens, live);
  // By UTF-16 unit, as the pattern was read: a character outside the BMP is two on both sides.
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at] as string;
    next.fill(0);
    let any = false;
    for (let state = 0; state < tokens.length; state += 1) {
      if (live[state] === 0) continue;
      budget.remaining -= 1;
      const token = tokens[state] as Token;
      let advance = false;
      if (token.kind === 'char') advance = token.char === char;
      else if (token.kind === 'one') advance = char !== '/';
      else if (token.kind === 'class') advance = token.test(char);
      else if (token.kind === 'star') {
        if (char !== '/') next[state] = 1;
      } else if (token.kind === 'all') next[state] = 1;
      else {
        next[state] = 1;
        advance = char === '/';
      }
      if (advance) next[state + 1] = 1;
      any ||= advance || next[state] === 1;
    }
    if (!any || budget.remaining <= 0) return false;
    close(tokens, next);
    [live, next] = [next, live];
  }
  return live[tokens.length] === 1;
}

/** Each live state before a token that may match nothing makes the state after it live too. */
function close(tokens: readonly Token[], states: Uint8Array): void {
  for (let state = 0; state < tokens.length; state += 1) {
    const kind = (tokens[state] as Token).kind;
    if (states[state] === 1 && (kind === 'star' || kind === 'all' || kind === 'names')) states[state + 1] = 1;
  }
}
