/**
 * `text` cut to at most `max` UTF-16 code units, never between the two
 * halves of a surrogate pair (a character outside the Basic Multilingual
 * Plane, an emoji): a lone half is not text, and the hidden-character scan
 * removes one from every upstream text. A clip after that scan put one back
 * where an upstream placed an emoji at the clip.
 */
export function clipWhole(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
