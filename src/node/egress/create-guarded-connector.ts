import { lookup as dnsLookup } from 'node:dns/promises';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { buildConnector } from 'undici';
import type { EgressConnect, EgressLookup } from '../node-host-types.js';
import { bareHostname, NonPublicAddressError, resolvePublicAddresses } from './resolve-public-addresses.js';

export interface GuardedConnectorOptions {
  readonly lookup?: EgressLookup | undefined;
  readonly connect?: EgressConnect | undefined;
  readonly trustedCa?: string | readonly string[] | undefined;
}

export const defaultLookup: EgressLookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

const defaultConnect: EgressConnect = ({ address, port }) =>
  new Promise<Duplex>((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });

/**
 * undici's connector, replaced: resolve every address of the host (an IP
 * literal is its own single answer — undici would skip a lookup hook for
 * it), refuse when ANY answer is non-public, then dial the validated address
 * and run TLS over it with SNI and certificate checks against the hostname.
 * The address dialled is the address checked, so a DNS answer that changes
 * between lookups (rebinding) cannot slip a private address in.
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const lookup = options.lookup ?? defaultLookup;
  const connect = options.connect ?? defaultConnect;
  const extraCa = options.trustedCa === undefined ? undefined : typeof options.trustedCa === 'string' ? [options.trustedCa] : [...options.trustedCa];
  const ca = extraCa === undefined ? undefined : [...tls.rootCertificates, ...extraCa];
  return (connectOptions, callback) => {
    open(connectOptions).then(
      (socket) => callback(null, socket),
      (error: unknown) => callback(error instanceof Error ? error : new Error('connect failed'), null),
    );
  };

  async function open(connectOptions: buildConnector.Options): Promise<tls.TLSSocket> {
    if (connectOptions.protocol !== 'https:') throw new NonPublicAddressError();
    const hostname = bareHostname(connectOptions.hostname);
    const { literal, first } = await resolvePublicAddresses(hostname, lookup);
    const port = Number(connectOptions.port || 443);
    const raw = await connect({ address: first.address, port, servername: hostname });
    return new Promise<tls.TLSSocket>((resolve, reject) => {
      const secure = tls.connect({
        socket: raw,
        host: hostname,
        // SNI carries names only; an IP literal is checked against the certificate's IP entries.
        ...(literal ? {} : { servername: hostname }),
        ALPNProtocols: ['http/1.1'],
        ...(ca === undefined ? {} : { ca }),
      });
      secure.once('secureConnect', () => resolve(secure));
      secure.once('error', (error: Error) => {
        raw.destroy();
        reject(error);
      });
    });
  }
}
