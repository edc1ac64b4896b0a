import { UNPRINTABLE } from '../action/display-action.js';
import { redactSecrets } from './redact-secrets.js';

export const MAX_SEARCH_QUERY_LENGTH = 1024;
/** Read by code point, a surrogate half is one only when it pairs with nothing. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A search query leaves the machine, so it is validated as untrusted data:
 * bounded, free of control and bidirectional-override characters, and free
 * of anything secret-shaped (a query is an exfiltration channel).
 * Returns a secret-free refusal detail, or undefined when acceptable.
 */
export function checkSearchQuery(query: unknown): string | undefined {
  if (typeof query !== 'string') return 'was refused: the search query is not a string';
  if (query.trim().length === 0) return 'was refused: the search query is empty';
  if (query.length > MAX_SEARCH_QUERY_LENGTH) return `was refused: the search query is longer than ${MAX_SEARCH_QUERY_LENGTH} characters`;
  // Invisible characters (Unicode tags among them) would carry what a person reading the query back does not see.
  if (UNPRINTABLE.test(query) || LONE_SURROGATE.test(query)) {
    return 'was refused: the search query holds control or invisible characters';
  }
  if (redactSecrets(query) !== query) return 'was refused: the search query holds a secret-shaped value';
  return undefined;
}
