import { codeSafeEnd, isPlaceholder, type SecretSpan } from './secret-token.js';

const isLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isSchemeChar = (code: number): boolean => isLetter(code) || (code >= 48 && code <= 57) || code === 43 || code === 46 || code === 45;
/** Whitespace, `/`, `?`, `#`, `@`, `[` and `]` end the userinfo (brackets belong to a host, and to the marker); `:` ends the user name. */
const endsUserinfo = (code: number): boolean => code <= 32 || code === 47 || code === 63 || code === 35 || code === 64 || code === 91 || code === 93;

/**
 * URL userinfo that holds a password (`https://user:hunter2@host`), masked
 * from the user name to the authority's last `@` (`app:p4ss@word@db` holds
 * the password `p4ss@word`), or to the first character that can carry code
 * before it. Userinfo without a password
 * (`https://git@github.com/…`) names a user, not a secret, and a
 * placeholder password (`user:****@`) is left as written. Found from each
 * `://` outwards: a scheme is the run of scheme characters before it, and
 * must start with a letter.
 */
export function userinfoSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 3)) {
    let scheme = at;
    while (scheme > 0 && isSchemeChar(text.charCodeAt(scheme - 1))) scheme -= 1;
    if (scheme === at || !isLetter(text.charCodeAt(scheme))) continue;
    const user = at + 3;
    let colon = user;
    while (colon < text.length && !endsUserinfo(text.charCodeAt(colon)) && text.charCodeAt(colon) !== 58) colon += 1;
    if (text.charCodeAt(colon) !== 58) continue;
    let end = colon + 1;
    while (end < text.length && !endsUserinfo(text.charCodeAt(end))) end += 1;
    if (text.charCodeAt(end) !== 64 || end === colon + 1 || isPlaceholder(text.slice(colon + 1, end))) continue;
    // The userinfo ends at the authority's last `@`, as a URL parser reads it: a password may hold one unescaped.
    for (let next = end + 1; ; next += 1) {
      if (next < text.length && !endsUserinfo(text.charCodeAt(next))) continue;
      if (text.charCodeAt(next) !== 64) break;
      end = next;
    }
    // Userinfo that holds code is masked up to it, and the code shows (`codeSafeEnd`).
    const cut = codeSafeEnd(text, user, end);
    if (cut > user) spans.push([user, cut]);
  }
  return spans;
}
