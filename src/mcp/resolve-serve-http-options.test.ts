import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../core/internal.js';
import { resolveServeHttpOptions } from './resolve-serve-http-options.js';

function refusal(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('resolveServeHttpOptions', () => {
  it('binds loopback at /mcp with 64 sessions idling out after 30 minutes by default', () => {
    expect(resolveServeHttpOptions({})).toEqual({ host: '127.0.0.1', path: '/mcp', maxSessions: 64, idleMs: 30 * 60_000 });
  });

  it('takes the configured values', () => {
    expect(resolveServeHttpOptions({ host: '::1', path: '/x', maxSessions: 2, sessionIdleMs: 5 })).toEqual({ host: '::1', path: '/x', maxSessions: 2, idleMs: 5 });
  });

  it.each([
    ['a non-loopback host without allowedHosts', { host: '0.0.0.0', token: 't' }],
    ['a non-loopback host without a token', { host: '0.0.0.0', allowedHosts: ['gw:80'] }],
  ])('refuses %s', (_label, options) => {
    expect(refusal(() => resolveServeHttpOptions(options)).code).toBe('CONFIGURATION_INVALID');
    expect(refusal(() => resolveServeHttpOptions(options)).field).toBe('http.host');
  });

  it('accepts a non-loopback host given both allowedHosts and a token', () => {
    expect(resolveServeHttpOptions({ host: '0.0.0.0', allowedHosts: ['gw:80'], token: 't' }).host).toBe('0.0.0.0');
  });

  it('refuses empty allow lists, which would switch the DNS-rebinding defence off', () => {
    expect(refusal(() => resolveServeHttpOptions({ allowedHosts: [] })).field).toBe('http.allowedHosts');
    expect(refusal(() => resolveServeHttpOptions({ allowedOrigins: [] })).field).toBe('http.allowedOrigins');
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a session idle time of %s', (sessionIdleMs) => {
    expect(refusal(() => resolveServeHttpOptions({ sessionIdleMs })).field).toBe('http.sessionIdleMs');
  });
});
