import { clipWhole } from './clip-whole.js';
import { redactSecrets } from './redact-secrets.js';

/**
 * Text for one line of a message a person or a model reads: secrets
 * redacted on the complete text first (a clip could cut a secret into a
 * shape no pattern recognises), every run of whitespace one space, then
 * clipped to `max` characters with an ellipsis (never between the halves of
 * a surrogate pair).
 */
export function redactedLine(text: string, max = 200): string {
  const line = redactSecrets(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${clipWhole(line, max)}…` : line;
}
