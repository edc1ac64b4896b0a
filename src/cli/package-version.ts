import { createRequire } from 'node:module';

/**
 * The version of the installed package, read from its own package.json by
 * the package's own name (wherever the executable's code lies: the source
 * tree, or a bundled chunk in `dist/`), so `toolgate --version` and the MCP
 * server's `serverInfo` say what is running.
 */
export function packageVersion(): string {
  const manifest = createRequire(import.meta.url)('toolgate/package.json') as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}
