import { clipWhole } from './clip-whole.js';

/** How many characters of a session id a person is shown. */
const SHOWN = 8;

/**
 * The first characters of a session id, for a person telling two clients
 * apart on a card or in a list. Never the whole id: over HTTP the id is what
 * a client sends to act within its session, and a screen is no place for it.
 */
export function shortSessionId(id: string): string {
  return clipWhole(id, SHOWN);
}
