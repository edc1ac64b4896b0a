import { describe, expect, it } from 'vitest';
import { httpAllowLists } from './http-allow-lists.js';

describe('httpAllowLists', () => {
  it('defaults to the loopback names at the bound port', () => {
    expect(httpAllowLists({}, 4321)).toEqual({
      allowedHosts: ['127.0.0.1:4321', 'localhost:4321', '[::1]:4321'],
      allowedOrigins: ['http://127.0.0.1:4321', 'http://localhost:4321', 'http://[::1]:4321'],
    });
  });

  it('takes the configured lists as given, copied', () => {
    const allowedHosts = ['gw.example:443'];
    const lists = httpAllowLists({ allowedHosts, allowedOrigins: ['https://gw.example'] }, 80);
    expect(lists).toEqual({ allowedHosts: ['gw.example:443'], allowedOrigins: ['https://gw.example'] });
    expect(lists.allowedHosts).not.toBe(allowedHosts);
  });
});
