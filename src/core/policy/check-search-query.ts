import { redactSecrets } from './redact-secrets.js';

export const MAX_SEARCH_QUERY_LENGTH = 1024;

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
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u.test(query)) {
    return 'was refused: the search query holds control or invisible characters';
  }
  if (redactSecrets(query) !== query) return 'was refused: the search query holds a secret-shaped value';
  return undefined;
}
