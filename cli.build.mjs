/*
 * The executable as a few files instead of some four hundred: `npm run build`
 * bundles what tsc wrote from dist/cli/bin.js into dist/cli/bin.js and its
 * chunks in dist/cli/chunks/. Node resolves, reads and links every ES module
 * on its own, and an MCP client waits for `toolgate serve` before its first
 * call: bundled, a gateway starts about a fifth sooner. Packages stay
 * imports of their own (the native SQLite driver, the MCP SDK), and each
 * command's code stays a chunk loaded when the command runs, as before.
 * The library's entry points (dist/core, dist/node, …) are left as tsc wrote
 * them.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const CLI = fileURLToPath(new URL('dist/cli/', import.meta.url));
const ENTRY = `${CLI}bin.js`;
const CHUNKS = 'chunks';

/** A path in this project (relative or absolute) is bundled; a bare name is a package, imported where it is installed. */
const isPackage = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0');

rmSync(`${CLI}${CHUNKS}`, { recursive: true, force: true });
const bundle = await rolldown({ input: ENTRY, platform: 'node', external: isPackage, logLevel: 'warn' });
await bundle.write({ dir: CLI, format: 'esm', entryFileNames: 'bin.js', chunkFileNames: `${CHUNKS}/[name]-[hash].js`, sourcemap: true });
await bundle.close();
