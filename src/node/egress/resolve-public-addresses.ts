import ipaddr from 'ipaddr.js';
import type { EgressLookup, ResolvedAddress } from '../node-host-types.js';
import { isPublicAddress } from './classify-address.js';

/** Raised when a destination resolves to a non-public address; the egress capability turns it into a typed denial. */
export class NonPublicAddressError extends Error {
  constructor() {
    super('The destination resolves to a non-public address.');
    this.name = 'NonPublicAddressError';
  }
}

/** A URL's hostname without the brackets of an IPv6 literal. */
export function bareHostname(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Resolve every address a bare hostname leads to, and refuse with
 * `NonPublicAddressError` when there is none or ANY of them is non-public;
 * answer with the first, the one to dial. An IP literal is its own single
 * answer: no lookup is made for it. A lookup failure rejects as the lookup
 * does.
 */
export async function resolvePublicAddresses(hostname: string, lookup: EgressLookup): Promise<{ readonly literal: boolean; readonly first: ResolvedAddress }> {
  const literal = ipaddr.isValid(hostname);
  const answers: readonly ResolvedAddress[] = literal ? [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }] : await lookup(hostname);
  const first = answers[0];
  if (first === undefined || answers.some((answer) => !isPublicAddress(answer.address))) throw new NonPublicAddressError();
  return { literal, first };
}
