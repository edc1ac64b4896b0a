import { homedir } from 'node:os';
import { dirname } from 'node:path';

/** A fixed system PATH: an upstream's executable is never looked up in the workspace or `node_modules/.bin`. */
const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/** The folders a stdio upstream's executable is looked up in: the running Node's, then the fixed system PATH. */
export function upstreamPath(): string[] {
  return [dirname(process.execPath), ...SYSTEM_PATH];
}

/**
 * Variables the SDK's stdio transport copies from the parent unless they are
 * set here. They are set to `undefined`, which Node's spawn skips, so they do
 * not reach the child unless declared.
 */
const SDK_INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const;

/**
 * The environment of a stdio upstream: a platform-minimal base (PATH, HOME,
 * LANG, TERM) plus the variables the server configuration declares — never
 * the ambient `process.env`, so a secret in the gateway's environment does
 * not reach an upstream. PATH is the fixed system PATH with the running
 * Node's directory first, so `node` and `npx` resolve to this Node.
 *
 * This mirrors the Node host's process capability (`createNodeHost`, env
 * `{ allow, set }`); a gateway built on the Node host can pass its helper's
 * result as `declared` instead.
 */
export function buildStdioEnv(declared: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {};
  for (const name of SDK_INHERITED) env[name] = undefined;
  env.PATH = upstreamPath().join(':');
  env.HOME = homedir();
  env.LANG = 'C.UTF-8';
  env.TERM = 'dumb';
  for (const [name, value] of Object.entries(declared)) {
    if (typeof value !== 'string' || name.length === 0 || name.includes('=') || name.includes('\0') || value.includes('\0')) continue;
    env[name] = value;
  }
  // The SDK types the environment as string-valued; undefined entries are how a key is removed from its merge.
  return env as Record<string, string>;
}
