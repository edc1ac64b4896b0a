import { describe, expect, it } from 'vitest';
import { buildStdioEnv } from './build-stdio-env.js';
import { upstreamStdioEnv } from './recognised-server-env.js';

/** The command-line configuration an environment carries, by key (a later pair wins, as in git). */
function gitConfig(env: Record<string, string | undefined>): Map<string, string> {
  const pairs = new Map<string, string>();
  for (let index = 0; index < Number(env.GIT_CONFIG_COUNT ?? 0); index += 1) pairs.set(env[`GIT_CONFIG_KEY_${index}`] as string, env[`GIT_CONFIG_VALUE_${index}`] as string);
  return pairs;
}

describe('upstreamStdioEnv', () => {
  it('gives the recognised git server the host git hardening, after any configuration it declares', () => {
    const env = upstreamStdioEnv({ name: 'git', transport: 'stdio', command: 'uvx', args: ['mcp-server-git'], env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'touch x', KEEP: 'yes' } });
    const pairs = gitConfig(env);
    expect(pairs.get('core.fsmonitor')).toBe('false');
    expect(pairs.get('core.hooksPath')).toBe('/dev/null');
    expect(pairs.get('safe.bareRepository')).toBe('explicit');
    expect(pairs.get('diff.external')).toContain('diff -u');
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');
    expect(env.KEEP).toBe('yes');
  });

  it('leaves every other server with the minimal environment', () => {
    const server = { name: 'fs', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { KEEP: 'yes' } } as const;
    expect(upstreamStdioEnv(server)).toEqual(buildStdioEnv(server.env));
  });
});
