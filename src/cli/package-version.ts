import { readFileSync } from 'node:fs';

/**
 * The version of the installed package, read from its own package.json (two
 * folders up from this module, in the source tree and in `dist/` alike), so
 * `toolgate --version` and the MCP server's `serverInfo` say what is running.
 */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}
