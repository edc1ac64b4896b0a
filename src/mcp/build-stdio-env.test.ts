import { describe, expect, it } from 'vitest';
import { buildStdioEnv } from './build-stdio-env.js';

describe('buildStdioEnv', () => {
  it('is a minimal base plus declared variables, never the ambient environment', () => {
    process.env.TOOLGATE_AMBIENT_SECRET = 'leak';
    try {
      const env = buildStdioEnv({ API_KEY: 'declared' });
      expect(env.TOOLGATE_AMBIENT_SECRET).toBeUndefined();
      expect(env.API_KEY).toBe('declared');
      expect(env.LANG).toBe('C.UTF-8');
      expect(env.PATH?.split(':').slice(1)).toEqual(['/usr/local/bin', '/usr/bin', '/bin']);
    } finally {
      delete process.env.TOOLGATE_AMBIENT_SECRET;
    }
  });

  it('blanks the variables the SDK would otherwise copy from the parent', () => {
    const env = buildStdioEnv();
    for (const name of ['LOGNAME', 'SHELL', 'USER']) {
      expect(name in env).toBe(true);
      expect(env[name]).toBeUndefined();
    }
  });

  it('drops malformed declared variables', () => {
    const env = buildStdioEnv({ 'A=B': 'x', 'C\0D': 'x', E: 'nul\0value', '': 'x', OK: 'fine' });
    expect(Object.keys(env).filter((name) => !['PATH', 'HOME', 'LANG', 'TERM', 'LOGNAME', 'SHELL', 'USER'].includes(name))).toEqual(['OK']);
  });
});
