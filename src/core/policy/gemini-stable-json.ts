/**
 * Gemini CLI's stable stringification of a call's arguments, which its
 * `argsPattern` regular expressions are written against: keys sorted, no
 * whitespace, `undefined` members dropped, and every top-level member
 * wrapped in NUL bytes (`{\0"command":"ls"\0}`) so a pattern can anchor on a
 * whole member. Only plain JSON values reach it here.
 */
export function geminiStableJson(args: Readonly<Record<string, unknown>>): string {
  const members = Object.keys(args)
    .sort()
    .filter((key) => args[key] !== undefined)
    .map((key) => `\0${JSON.stringify(key)}:${nested(args[key])}\0`);
  return `{${members.join(',')}}`;
}

function nested(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(nested).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${nested(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
