import type { ServeHttpOptions } from './serve-http.js';

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/** The Host and Origin values a session accepts: the configured ones, else the loopback names at the bound port. */
export function httpAllowLists(options: Pick<ServeHttpOptions, 'allowedHosts' | 'allowedOrigins'>, port: number): { readonly allowedHosts: string[]; readonly allowedOrigins: string[] } {
  return {
    allowedHosts: options.allowedHosts === undefined ? LOOPBACK_HOSTS.map((name) => `${name}:${port}`) : [...options.allowedHosts],
    allowedOrigins: options.allowedOrigins === undefined ? LOOPBACK_HOSTS.map((name) => `http://${name}:${port}`) : [...options.allowedOrigins],
  };
}
