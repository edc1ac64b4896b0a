import type { ShownSession } from '../console-types.js';
import { visible } from './dom.js';

/** A session as a person reads it: its client's declared name and version, written out as any value, and the start of its id. */
export function sessionText(session: ShownSession): string {
  const client = session.client ? `client ${visible(session.client.name)} ${visible(session.client.version)}` : 'a client that declared no name';
  return `${client} · session ${visible(session.id)}`;
}
