import { flagValueSpan, holdsShortSecretLetter, programFamily, readFlag, SECRET_FLAG_HINT } from '../policy/secret-flags.js';
import { maskSpans, type RedactedText } from '../policy/secret-token.js';

/** The members that name the program an argument object's argv is given to (`{ program: 'docker', args: […] }`). */
const PROGRAM_MEMBER = /^(?:program|command|cmd|executable|exe|bin|binary|file)$/i;

/** Whether a member names the program beside an argv: its first letter is read before the pattern, as for a pair's value. */
export function namesProgram(key: string): boolean {
  const first = key.charCodeAt(0) | 0x20;
  return (first === 112 || first === 99 || first === 101 || first === 98 || first === 102) && PROGRAM_MEMBER.test(key);
}

/** The program an object's members name (`command: '/usr/bin/mysql'`), given its keys and their values each read once. */
export function programMember(keys: readonly string[], values: readonly unknown[]): string | undefined {
  for (let index = 0; index < keys.length; index += 1) {
    const value = values[index];
    if (typeof value !== 'string' || !namesProgram(keys[index] as string)) continue;
    // A command line's first word.
    const blank = value.indexOf(' ');
    return blank === -1 ? value : value.slice(0, blank);
  }
  return undefined;
}

/** Whether an item may be a flag `readFlag` reads a secret after: most items (operands, `-rf`, `--force`) leave after one test. */
const mayTakeSecret = (item: string): boolean =>
  item.charCodeAt(0) === 45 && item.length >= 2 && ((item.charCodeAt(1) !== 45 && holdsShortSecretLetter(item)) || (item.length >= 4 && SECRET_FLAG_HINT.test(item)));

/**
 * The items of an argv that hold a secret by the flag before them, masked:
 * `['login', '--password', X, 'registry']`, `['-u', 'user:X', url]`,
 * `['-pX', 'db']` (mysql), as `readFlag` reads each flag in the program the
 * argv is given to (`program`, a member beside the list, or an item of it
 * naming one). Indexed as the items are; undefined when none holds one.
 * Each value is masked as one after a flag in text is (`flagValueSpan`),
 * any length: the item after a flag whose name says place, or that only
 * switches something on, and a value that names a place, stay as they are.
 */
export function argvSecrets(items: readonly unknown[], program: string | undefined): (RedactedText | undefined)[] | undefined {
  let family = program === undefined ? undefined : programFamily(program);
  let masked: (RedactedText | undefined)[] | undefined;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (typeof item !== 'string' || item.length === 0) continue;
    if (!mayTakeSecret(item)) {
      family = programFamily(item) ?? family;
      continue;
    }
    const reading = readFlag(item, family);
    const at = reading === undefined ? -1 : reading.attachedAt === -1 ? index + 1 : index;
    const value = items[at];
    if (reading === undefined || typeof value !== 'string') continue;
    const span = flagValueSpan(value, reading.attachedAt === -1 ? 0 : reading.attachedAt, reading.takes, 1);
    if (span === undefined) continue;
    masked ??= [];
    masked[at] = maskSpans(value, [span]);
    index = at;
  }
  return masked;
}
