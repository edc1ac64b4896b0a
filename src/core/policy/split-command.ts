/**
 * The one way a command becomes an argv: a string is trimmed of spaces and
 * split on runs of spaces (U+0020) — nothing else. No quotes, escapes,
 * globs, variables or operators are interpreted, so `a;b`, `$(x)` and `|`
 * stay literal bytes of an argv element, and a tab or newline never splits
 * (it makes the element fail an exact match instead). An argv is copied as is.
 */
export function splitCommand(command: string | readonly string[]): readonly string[] {
  if (typeof command !== 'string') return [...command];
  const trimmed = command.startsWith(' ') || command.endsWith(' ') ? command.replace(/^ +| +$/g, '') : command;
  if (trimmed.length === 0) return [];
  return trimmed.includes('  ') ? trimmed.split(/ +/) : trimmed.split(' ');
}
