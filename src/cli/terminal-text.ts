import { showUnprintable, UNPRINTABLE_BUT_LINES } from '../core/action/display-action.js';

/*
 * A terminal obeys what it is sent: an escape sequence moves the cursor,
 * erases or rewrites lines already shown, hides the cursor, switches screens,
 * sets the title, makes a link or writes the clipboard; a carriage return or
 * a backspace writes over a line; direction overrides and zero-width
 * characters make a line read as something else. Text a model, an upstream
 * server, a journal row or a file chose is therefore never written to the
 * terminal as it is: every such character is shown as `⟨U+XXXX⟩`, as the
 * approval card shows it, so what the operator reads is what happened.
 */

const EVERY_UNPRINTABLE_BUT_LINES = new RegExp(UNPRINTABLE_BUT_LINES.source, 'g');

/** One field of a line (a name, a cell, a status): every control, line break and tab included, is written out. */
export function terminalLine(text: string): string {
  return showUnprintable(text);
}

/** A block of lines (a result, a description, a message): line breaks and tabs stay, `\r\n` is read as a line break, everything else is written out. */
export function terminalText(text: string): string {
  if (!UNPRINTABLE_BUT_LINES.test(text)) return text;
  return text
    .split(/\r?\n/)
    .map((line) => showUnprintable(line, true))
    .join('\n');
}

/**
 * JSON for a stream a terminal may show: the same document, with the
 * characters `JSON.stringify` leaves raw (C1 controls, direction and
 * zero-width characters, line and paragraph separators, Unicode tags)
 * written as `\uXXXX` escapes, which a parser reads back as the very same
 * values and a terminal draws as text.
 */
export function terminalJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) ?? 'null';
  // Every control is escaped inside a string already: a raw line feed is the indentation's own.
  return UNPRINTABLE_BUT_LINES.test(text) ? text.replace(EVERY_UNPRINTABLE_BUT_LINES, jsonEscape) : text;
}

function jsonEscape(character: string): string {
  let escaped = '';
  for (let index = 0; index < character.length; index += 1) escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`;
  return escaped;
}
