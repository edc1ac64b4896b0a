import { showUnprintable, UNPRINTABLE } from '../action/display-action.js';

/** Half of a surrogate pair alone (a whole pair is one code point under `u`, not `Cs`): not text, whatever a screen draws for it. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why a rule's text cannot be imported, or undefined when it can. A control,
 * a line break, a zero-width or direction character (or half a surrogate
 * pair) draws as nothing or reorders the line: `Bash(rm:*)` with a zero-width space
 * after `rm` reads as a deny of `rm` in the file, in `policy import` and in
 * `policy explain`, and matches no command. The file is refused rather than
 * the rule read one way and shown another.
 */
export function unprintableRuleText(text: string): string | undefined {
  if (LONE_SURROGATE.test(text)) return 'holds half of a surrogate pair, which is not text';
  const found = UNPRINTABLE.exec(text);
  return found === null ? undefined : `holds ${showUnprintable(found[0])}, which draws as nothing or changes how the line reads`;
}
